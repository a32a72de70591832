// The control CPU with its memories: kite_cpu, the firmware ROM, the data
// RAM and the MMIO window (firmware/rv32/link.ld and hal_mmio.cpp):
//   0x0000_0000  ROM, ROM_KB: code and constants (and .data's image). A
//                store is an access fault. Loaded with the bitstream
//                (ROM_HEX, $readmemh of firmware/rv32's image) or through
//                ld_*, the board's loader port (a firmware update from flash
//                without a new bitstream).
//   0x1000_0000  RAM, RAM_KB: data, stack. Fetching from it is an access
//                fault, so a wild jump traps instead of running data.
//   0x2000_0000  the MMIO window, 64 KiB, passed to io_* (kite_cpu_io
//                answers only a request it sees on io_req_o; its ack may
//                come in the request's cycle).
//   0x3000_0000  CTX, CTX_KB: the firmware's context store (fw::PortHal
//                keeps whole contexts, about 0.8 MiB), in UltraRAM; data
//                only, like the RAM.
//   elsewhere    access fault.
// All three memories have a registered read: an access is acknowledged the
// cycle after the request, and so is an access fault.
module kite_cpu_sys #(
  parameter int unsigned ROM_KB  = 128,
  parameter int unsigned RAM_KB  = 128,
  parameter int unsigned CTX_KB  = 1024,
  parameter              ROM_HEX = ""
) (
  input  logic        clk_i,
  input  logic        rst_ni,

  input  logic                      ld_we_i,    // ROM loader: a word per cycle, the CPU in reset
  input  logic [$clog2(ROM_KB*256)-1:0] ld_word_i,
  input  logic [31:0]                ld_data_i,

  output logic        io_req_o,
  output logic        io_we_o,
  output logic [15:0] io_addr_o,      // byte offset in the window, word aligned
  output logic [3:0]  io_be_o,
  output logic [31:0] io_wdata_o,
  input  logic        io_ack_i,
  input  logic        io_err_i,
  input  logic [31:0] io_rdata_i,

  output logic        rt_valid_o,
  output logic [31:0] rt_pc_o,
  output logic [31:0] rt_insn_o,
  output logic        rt_trap_o,
  output logic [3:0]  rt_cause_o,
  output logic [31:0] rt_tval_o,
  output logic [4:0]  rt_rd_o,
  output logic [31:0] rt_rd_val_o,
  output logic [31:0] rt_next_pc_o
);
  localparam int unsigned ROM_W = ROM_KB * 256, RAM_W = RAM_KB * 256, CTX_W = CTX_KB * 256;  // 32-bit words
  localparam int unsigned ROM_AW = $clog2(ROM_W), RAM_AW = $clog2(RAM_W), CTX_AW = $clog2(CTX_W);

  logic        req, instr, we, ack, err;
  logic [31:0] addr, wdata, rdata;
  logic [3:0]  be;

  kite_cpu u_core (
    .clk_i, .rst_ni,
    .bus_req_o(req), .bus_instr_o(instr), .bus_we_o(we), .bus_addr_o(addr), .bus_be_o(be),
    .bus_wdata_o(wdata), .bus_ack_i(ack), .bus_err_i(err), .bus_rdata_i(rdata),
    .rt_valid_o, .rt_pc_o, .rt_insn_o, .rt_trap_o, .rt_cause_o, .rt_tval_o, .rt_rd_o, .rt_rd_val_o,
    .rt_next_pc_o
  );

  logic in_rom, in_ram, in_ctx, in_io;
  assign in_rom = addr[31:28] == 4'h0 && addr[27:2] < 26'(ROM_W);
  assign in_ram = addr[31:28] == 4'h1 && addr[27:2] < 26'(RAM_W);
  assign in_ctx = addr[31:28] == 4'h3 && addr[27:2] < 26'(CTX_W);
  assign in_io  = addr[31:16] == 16'h2000;

  // A memory access starts when its request is seen and is answered the
  // next cycle (the core holds the request until then). So is one that
  // faults (no memory there, or the wrong kind of access): answering it in
  // the cycle of the request put the address decode ahead of the core's
  // trap logic in one cycle.
  logic       mem_ok, busy_q, bad_q;
  logic [1:0] sel_q;                          // 0 ROM, 1 RAM, 2 CTX
  assign mem_ok = (in_rom && !we) || ((in_ram || in_ctx) && !instr);

  (* ram_style = "block" *) logic [31:0] rom [ROM_W];
  logic [31:0] rom_q, ram_q, ctx_q;
  initial if (ROM_HEX != "") $readmemh(ROM_HEX, rom);

  always_ff @(posedge clk_i) begin
    if (ld_we_i) rom[ld_word_i] <= ld_data_i;
    if (req && !busy_q && in_rom) rom_q <= rom[addr[ROM_AW+1:2]];
  end

  // The RAM as four byte lanes: a 32K-deep block RAM is built of 32K x 1
  // primitives, which have no byte enables.
  logic ram_en;
  assign ram_en = req && !busy_q && in_ram && !instr;
  for (genvar l = 0; l < 4; l++) begin : g_lane
    (* ram_style = "block" *) logic [7:0] lane [RAM_W];   // (yosys would pick distributed RAM)
`ifndef SYNTHESIS
    // Block RAM configures to zero; a simulator must be told (synthesis
    // would unroll the loop word by word).
    initial for (int i = 0; i < RAM_W; i++) lane[i] = 8'h0;
`endif
    always_ff @(posedge clk_i) begin
      if (ram_en) begin
        if (we && be[l]) lane[addr[RAM_AW+1:2]] <= wdata[8*l +: 8];
        ram_q[8*l +: 8] <= lane[addr[RAM_AW+1:2]];
      end
    end
  end

  // The context store: UltraRAM reads or writes in a cycle, not both.
  logic ctx_en;
  assign ctx_en = req && !busy_q && in_ctx && !instr;
  (* ram_style = "ultra" *) logic [31:0] ctx [CTX_W];
`ifndef SYNTHESIS
  initial for (int i = 0; i < CTX_W; i++) ctx[i] = 32'h0;   // UltraRAM configures to zero
`endif
  always_ff @(posedge clk_i) begin
    if (ctx_en) begin
      if (we) begin
        for (int j = 0; j < 4; j++)
          if (be[j]) ctx[addr[CTX_AW+1:2]][8*j +: 8] <= wdata[8*j +: 8];
      end else begin
        ctx_q <= ctx[addr[CTX_AW+1:2]];
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q <= 1'b0;
      bad_q <= 1'b0;
      sel_q <= 2'd0;
    end else begin
      busy_q <= req && !busy_q && !(in_io && !instr);
      bad_q <= !mem_ok;
      sel_q <= in_ctx ? 2'd2 : in_ram ? 2'd1 : 2'd0;
    end
  end

  assign io_req_o   = req && in_io && !instr;
  assign io_we_o    = we;
  assign io_addr_o  = addr[15:0];
  assign io_be_o    = be;
  assign io_wdata_o = wdata;

  // The window answers only its own requests, never in a cycle a memory or
  // a fault answers, so its answer needs no address decode here.
  always_comb begin
    if (busy_q) begin
      ack = 1'b1; err = bad_q; rdata = sel_q == 2'd2 ? ctx_q : sel_q == 2'd1 ? ram_q : rom_q;
    end else begin
      ack = io_ack_i; err = io_err_i; rdata = io_rdata_i;
    end
  end
endmodule
