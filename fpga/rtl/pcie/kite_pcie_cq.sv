// Completer side of the UltraScale+ PCIe integrated block (PG213, 512-bit,
// straddle off, DWORD-aligned mode): host MMIO into the card's BARs.
//
// CQ memory reads and writes of 1 DW, or 2 DW inside one naturally aligned
// 8-byte word (the driver's readl/writel/readq/writeq), become one request
// on the MMIO port: function, BAR, offset inside the BAR (the address masked
// by the BAR aperture, 8-byte aligned) and 8 byte enables. A read waits for
// mmio_rsp_valid_i and answers a CC completion with the data.
//
// Everything else is rejected and counted in cnt_unsup_o, never forwarded:
// * longer or straddling memory reads: completion with Completer Abort;
// * other non-posted requests (I/O, atomics, locked reads): completion with
//   Unsupported Request;
// * longer or straddling memory writes, messages and other posted requests:
//   dropped (all their beats are consumed).
// One request is served at a time; CQ is back-pressured while a read waits
// for its data or its completion waits for CC.
module kite_pcie_cq (
  input  logic         clk_i,
  input  logic         rst_ni,

  input  logic [511:0] cq_tdata_i,
  input  logic [182:0] cq_tuser_i,
  input  logic         cq_tlast_i,
  input  logic         cq_tvalid_i,
  output logic         cq_tready_o,

  output logic [511:0] cc_tdata_o,
  output logic [80:0]  cc_tuser_o,
  output logic [15:0]  cc_tkeep_o,
  output logic         cc_tlast_o,
  output logic         cc_tvalid_o,
  input  logic         cc_tready_i,

  output logic         mmio_req_valid_o,
  output logic         mmio_req_write_o,
  output logic [7:0]   mmio_req_func_o,
  output logic [2:0]   mmio_req_bar_o,
  output logic [31:0]  mmio_req_addr_o,
  output logic [63:0]  mmio_req_wdata_o,
  output logic [7:0]   mmio_req_be_o,
  input  logic         mmio_rsp_valid_i,
  input  logic [63:0]  mmio_rsp_data_i,

  output logic [31:0]  cnt_unsup_o
);

  typedef enum logic [1:0] {S_IDLE, S_DRAIN, S_WAIT, S_CC} state_e;
  state_e state_q;

  // PG213 Completer Request Descriptor: [1:0] AT, [63:2] address, [74:64]
  // DW count, [78:75] type, [95:80] requester ID, [103:96] tag, [111:104]
  // target function, [114:112] BAR ID, [120:115] BAR aperture (log2 of the
  // BAR size), [123:121] TC, [126:124] attr. Payload from DW 4.
  // cq_tuser: [3:0] first BE, [11:8] last BE (512-bit layout).
  logic [63:0] c_addr, c_mask, c_off;
  logic [10:0] c_dw;
  logic [3:0]  c_type, c_fbe, c_lbe;
  logic [15:0] c_rid;
  logic [7:0]  c_tag, c_func;
  logic [2:0]  c_bar, c_tc, c_attr;
  logic [5:0]  c_aper;
  logic        c_fits, sop;
  logic [31:0] c_pl0, c_pl1;

  assign c_addr = {cq_tdata_i[63:2], 2'b00};
  assign c_dw   = cq_tdata_i[74:64];
  assign c_type = cq_tdata_i[78:75];
  assign c_rid  = cq_tdata_i[95:80];
  assign c_tag  = cq_tdata_i[103:96];
  assign c_func = cq_tdata_i[111:104];
  assign c_bar  = cq_tdata_i[114:112];
  assign c_aper = cq_tdata_i[120:115];
  assign c_tc   = cq_tdata_i[123:121];
  assign c_attr = cq_tdata_i[126:124];
  assign c_pl0  = cq_tdata_i[159:128];
  assign c_pl1  = cq_tdata_i[191:160];
  assign c_fbe  = cq_tuser_i[3:0];
  assign c_lbe  = cq_tuser_i[11:8];
  assign c_mask = ~(~64'd0 << c_aper);
  assign c_off  = c_addr & c_mask;
  assign c_fits = c_dw == 11'd1 || (c_dw == 11'd2 && !c_addr[2]);
  assign sop    = state_q == S_IDLE && cq_tvalid_i;

  localparam logic [3:0] T_MRD = 4'b0000, T_MWR = 4'b0001;

  // Non-posted types answered with UR: I/O read/write, fetch-add, swap,
  // CAS, locked read.
  logic np_other;
  assign np_other = c_type >= 4'b0010 && c_type <= 4'b0111;

  // Byte count and lower address bits of a read completion from the byte
  // enables (PCIe Base Spec, "Completion Rules").
  function automatic logic [1:0] tz4(input logic [3:0] be);
    begin
      tz4 = be[0] ? 2'd0 : be[1] ? 2'd1 : be[2] ? 2'd2 : be[3] ? 2'd3 : 2'd0;
    end
  endfunction
  function automatic logic [1:0] lz4(input logic [3:0] be);
    begin
      lz4 = be[3] ? 2'd0 : be[2] ? 2'd1 : be[1] ? 2'd2 : be[0] ? 2'd3 : 2'd0;
    end
  endfunction
  logic [12:0] c_bc;
  always_comb begin
    if (c_dw == 11'd1) begin
      if (c_fbe == 4'd0) c_bc = 13'd1;
      else c_bc = 13'd4 - {11'd0, tz4(c_fbe)} - {11'd0, lz4(c_fbe)};
    end else begin
      c_bc = 13'd8 - {11'd0, tz4(c_fbe)} - {11'd0, lz4(c_lbe)};
    end
  end

  // Completion being built.
  logic [15:0] k_rid;
  logic [7:0]  k_tag, k_func;
  logic [2:0]  k_tc, k_attr, k_st;
  logic [6:0]  k_la;
  logic [12:0] k_bc;
  logic [10:0] k_dw;
  logic        k_hi;     // first DW is the upper half of the 8-byte word
  logic [63:0] k_data;
  logic [31:0] cnt_q;

  assign cq_tready_o = state_q == S_IDLE || state_q == S_DRAIN;
  assign cnt_unsup_o = cnt_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q          <= S_IDLE;
      mmio_req_valid_o <= 1'b0;
      mmio_req_write_o <= 1'b0;
      mmio_req_func_o  <= '0;
      mmio_req_bar_o   <= '0;
      mmio_req_addr_o  <= '0;
      mmio_req_wdata_o <= '0;
      mmio_req_be_o    <= '0;
      k_rid            <= '0;
      k_tag            <= '0;
      k_func           <= '0;
      k_tc             <= '0;
      k_attr           <= '0;
      k_st             <= '0;
      k_la             <= '0;
      k_bc             <= '0;
      k_dw             <= '0;
      k_hi             <= 1'b0;
      k_data           <= '0;
      cnt_q            <= '0;
    end else begin
      mmio_req_valid_o <= 1'b0;
      unique case (state_q)
        S_IDLE: if (sop) begin
          k_rid  <= c_rid;
          k_tag  <= c_tag;
          k_func <= c_func;
          k_tc   <= c_tc;
          k_attr <= c_attr;
          k_hi   <= c_addr[2];
          k_la   <= {c_addr[6:2], tz4(c_fbe)};
          k_bc   <= c_bc;
          mmio_req_func_o  <= c_func;
          mmio_req_bar_o   <= c_bar;
          mmio_req_addr_o  <= {c_off[31:3], 3'b000};
          mmio_req_wdata_o <= c_addr[2] ? {c_pl0, 32'd0} : {c_pl1, c_pl0};
          mmio_req_be_o    <= c_addr[2] ? {c_fbe, 4'd0}
                                        : {c_dw == 11'd2 ? c_lbe : 4'd0, c_fbe};
          if (c_type == T_MRD && c_fits) begin
            mmio_req_valid_o <= 1'b1;
            mmio_req_write_o <= 1'b0;
            k_dw             <= c_dw;
            k_st             <= 3'b000;
            state_q          <= S_WAIT;
          end else if (c_type == T_MWR && c_fits) begin
            mmio_req_valid_o <= 1'b1;
            mmio_req_write_o <= 1'b1;
            if (!cq_tlast_i) state_q <= S_DRAIN;
          end else begin
            cnt_q <= cnt_q + 32'd1;
            if (c_type == T_MRD || np_other) begin
              k_dw    <= '0;
              k_st    <= c_type == T_MRD ? 3'b100 : 3'b001;   // CA : UR
              k_data  <= '0;
              if (c_type != T_MRD) k_la <= '0;
              state_q <= S_CC;     // non-posted requests are one beat
            end else if (!cq_tlast_i) begin
              state_q <= S_DRAIN;
            end
          end
        end
        S_DRAIN: if (cq_tvalid_i && cq_tlast_i) state_q <= S_IDLE;
        S_WAIT: if (mmio_rsp_valid_i) begin
          k_data  <= mmio_rsp_data_i;
          state_q <= S_CC;
        end
        S_CC: if (cc_tready_i) state_q <= S_IDLE;
        default: state_q <= S_IDLE;
      endcase
    end
  end

  // PG213 Completer Completion Descriptor: [6:0] lower address, [9:8] AT,
  // [28:16] byte count, [29] locked, [42:32] DW count, [45:43] status,
  // [46] poisoned, [63:48] requester ID, [71:64] tag, [87:72] completer ID
  // (bus from the core, function from the request), [88] completer ID
  // enable, [91:89] TC, [94:92] attr, [95] force ECRC. Payload from DW 3.
  // cc_tuser (512-bit): [1:0] is_sop, [3:2] is_sop0_ptr, [7:6] is_eop,
  // [11:8] is_eop0_ptr, [15:12] is_eop1_ptr, [16] discontinue, [80:17] parity (unused).
  logic [95:0]  k_desc;
  logic [31:0]  k_pl0, k_pl1;
  logic [3:0]   k_eop;
  assign k_desc = {1'b0, k_attr, k_tc, 1'b0, 8'h00, k_func, k_tag, k_rid,
                   1'b0, 1'b0, k_st, k_dw, 2'b00, 1'b0, k_bc, 6'd0, 2'b00, 1'b0, k_la};
  assign k_pl0  = k_hi ? k_data[63:32] : k_data[31:0];
  assign k_pl1  = k_data[63:32];
  assign k_eop  = 4'd2 + k_dw[3:0];
  assign cc_tvalid_o = state_q == S_CC;
  assign cc_tdata_o  = {352'd0, k_dw == 11'd2 ? k_pl1 : 32'd0, k_dw != 11'd0 ? k_pl0 : 32'd0, k_desc};
  assign cc_tkeep_o  = 16'hffff >> (4'd15 - k_eop);
  assign cc_tlast_o  = 1'b1;
  assign cc_tuser_o  = {64'd0, 1'b0, 4'd0, k_eop, 2'b01, 2'b00, 2'b00, 2'b01};

  logic unused_cq;
  assign unused_cq = ^{cq_tdata_i[511:192], cq_tdata_i[127], cq_tdata_i[79], cq_tdata_i[1:0], cq_tuser_i[182:12],
                       cq_tuser_i[7:4], c_off[63:32], c_off[2:0]};

endmodule : kite_pcie_cq
