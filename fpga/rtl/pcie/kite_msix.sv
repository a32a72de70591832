// MSI-X tables and Pending Bit Arrays of every PCI function of the card, for
// the UltraScale+ PCIe integrated block (pcie4_uscale_plus, PG213) built with
// "MSI-X External": the core keeps only the MSI-X capability (Enable and
// Function Mask, which it reports on cfg_interrupt_msix_*enable/mask) and
// sends the message user logic hands it. Its internal table holds 8 vectors
// a function; the card has PF_VEC on the PF and VF_VEC on each VF.
//
// Functions: 0 is the PF, 1..NVF the VFs (function f is the core's VF f-1).
// On the core's cfg_interrupt_msi_function_number the PF is 0 and VF v is
// VF_FN_BASE + v, assumed 4 + v: the core's 252 VFs would fill the 8-bit
// function space after its four PFs (kite_pcie's core_fn; the C++ copy is
// fpga/model/include/kite/pcie_fn.hpp). To be checked against a generated
// pcie4_uscale_plus core (Documentation/hw/rtl.rst, "Board top").
//
// BAR4 of every function (16 KiB, PCIe 6.8.2): the table at 0, entry n at
// 16*n: Message Address low (bits 1:0 read 0), Message Address high,
// Message Data, Vector Control (bit 0 Mask, 1 after reset; other bits 0).
// The PBA at 0x2000, read only: bit n of the QWORDs is vector n pending.
// Entries of vectors the function does not have, and the rest of the BAR,
// read 0 and ignore writes. A read is answered the cycle after it is taken
// (rsp_valid_o); a write takes effect in the cycle it is taken.
//
// Storage: address and data of all entries (PF first, then VF 0, 1, ...)
// in one block RAM, one read port (host reads and the send lookup) and one
// write port with byte enables. Mask, pending and "written since reset"
// bits are flops: the pending-and-deliverable vectors are found every
// cycle, and an FLR resets its function at once: an entry not written
// since reset reads 0 and sends address and data 0, and the first write to
// it stores the whole entry (other dwords 0), so the RAM is never cleared.
//
// Requests (msix_*, always taken): for a function whose MSI-X Enable is 0,
// fn > NVF, or a vector beyond the function's count, dropped (drop_o the
// next cycle). Otherwise the vector's pending bit is set; every request
// goes through the PBA, so requests for a vector already pending coalesce
// into one message. A pending vector is deliverable while its function is
// enabled and not function-masked and its Mask bit is clear.
//
// Sending (one message in flight, PG213: wait for sent or fail): when no
// message is in flight, a rotating-priority pick over all entries (from the
// one after the last sent) takes a deliverable vector, clears its pending
// bit and reads its entry (that cycle host accesses wait: req_ready_o = 0).
// Address, data and function number are registered the next cycle and
// cfg_interrupt_msix_int_o pulses the cycle after: issue at c, pulse at c+2,
// held until the next message, so later table writes cannot change the
// message in flight. cfg_interrupt_msi_sent_i ends it; on
// cfg_interrupt_msi_fail_i the pending bit is set again and the vector is
// retried when it is next picked (its pending bit is cleared at issue, not at
// sent). An FLR of the function after issue means a fail does not set it.
// Requests and retries both wait as pending bits and the pick rotates, so
// neither starves the other: a deliverable vector is sent within NENT
// messages. A message takes 3 cycles plus the core's latency to sent/fail.
//
// Order within a cycle: the pick and host reads see the state at the start
// of the cycle; a request for the vector picked in that cycle is covered by
// that message; FLR overrides the host write, request and fail of its cycle.
// The core's Enable and Function Mask bits are registered (one cycle late).
module kite_msix #(
  parameter int unsigned NVF        = 16,                               // <= 252, NVF + 1 <= 2**FN_W
  parameter int unsigned FN_W       = 5,
  parameter int unsigned PF_VEC     = 32'(kite_pkg::PF_MSIX_VECTORS),  // <= 512: the table ends at 0x2000
  parameter int unsigned VF_VEC     = 32'(kite_pkg::VF_MSIX_VECTORS),  // <= 32: a VF's PBA is one dword
  parameter logic [7:0]  VF_FN_BASE = 8'd4    // core's function number of VF 0 (check on a generated core)
) (
  input  logic            clk_i,
  input  logic            rst_ni,

  // BAR4 accesses from the completer path, one dword each.
  input  logic            req_valid_i,
  output logic            req_ready_o,
  input  logic            req_write_i,
  input  logic [FN_W-1:0] req_fn_i,
  input  logic [13:0]     req_addr_i,     // byte offset in BAR4, dword aligned
  input  logic [31:0]     req_wdata_i,
  input  logic [3:0]      req_be_i,
  output logic            rsp_valid_o,    // the cycle after a read is taken
  output logic [31:0]     rsp_rdata_o,

  // Interrupt requests from the card.
  input  logic            msix_valid_i,
  output logic            msix_ready_o,
  input  logic [FN_W-1:0] msix_fn_i,
  input  logic [15:0]     msix_vector_i,

  // Function level resets (pulses): table and PBA of the function to reset values.
  input  logic [NVF:0]    flr_i,

  // The core.
  input  logic [3:0]      cfg_interrupt_msix_enable_i,
  input  logic [3:0]      cfg_interrupt_msix_mask_i,
  input  logic [251:0]    cfg_interrupt_msix_vf_enable_i,
  input  logic [251:0]    cfg_interrupt_msix_vf_mask_i,
  output logic [63:0]     cfg_interrupt_msix_address_o,
  output logic [31:0]     cfg_interrupt_msix_data_o,
  output logic            cfg_interrupt_msix_int_o,
  output logic [7:0]      cfg_interrupt_msi_function_number_o,
  input  logic            cfg_interrupt_msi_sent_i,
  input  logic            cfg_interrupt_msi_fail_i,

  output logic            drop_o          // pulse: a request dropped
);

  localparam int unsigned NENT = PF_VEC + NVF * VF_VEC;    // table entries, PF first
  localparam int unsigned EW   = $clog2(NENT);
  localparam int unsigned PFW  = (PF_VEC + 31) / 32;       // PBA dwords of the PF
  localparam int unsigned PWW  = PFW > 1 ? $clog2(PFW) : 1;
  localparam int unsigned NFX  = 1 << FN_W;                // every value of a function number

  // Entry of (function, vector); only meaningful for a vector the function has.
  function automatic logic [EW-1:0] ent_idx(input logic [FN_W-1:0] fn, input logic [15:0] vec);
    begin
      if (fn == '0) ent_idx = EW'(vec);
      else          ent_idx = EW'(32'(PF_VEC) + 32'(VF_VEC) * (32'(fn) - 32'd1) + 32'(vec));
    end
  endfunction

  function automatic logic [FN_W-1:0] ent_fn(input logic [EW-1:0] e);
    begin
      if (32'(e) < PF_VEC) ent_fn = '0;
      else                 ent_fn = FN_W'((32'(e) - PF_VEC) / VF_VEC + 32'd1);
    end
  endfunction

  // ---------------------------------------------------------------- function state
  // Enable, and enable with the Function Mask clear; functions past NVF read 0.
  logic [NFX-1:0] en_q, ok_q, flr_x;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      en_q <= '0;
      ok_q <= '0;
    end else begin
      en_q <= NFX'({cfg_interrupt_msix_vf_enable_i[NVF-1:0], cfg_interrupt_msix_enable_i[0]});
      ok_q <= NFX'({cfg_interrupt_msix_vf_enable_i[NVF-1:0] & ~cfg_interrupt_msix_vf_mask_i[NVF-1:0],
                    cfg_interrupt_msix_enable_i[0] & ~cfg_interrupt_msix_mask_i[0]});
    end
  end
  assign flr_x = NFX'(flr_i);

  // Per entry: its function's enable-and-unmasked and FLR.
  logic [NENT-1:0] ok_e, flr_e;
  for (genvar i = 0; i < NENT; i++) begin : g_ent
    localparam int unsigned F = i < PF_VEC ? 0 : 1 + (i - PF_VEC) / VF_VEC;
    assign ok_e[i]  = ok_q[F];
    assign flr_e[i] = flr_i[F];
  end

  logic [NENT-1:0] mask_q, pend_q, live_q;   // Mask, pending, written since reset
  logic [NENT-1:0] mask_d, pend_d, live_d;

  // ---------------------------------------------------------------- the pick
  typedef enum logic [1:0] {S_IDLE, S_READ, S_SEND, S_WAIT} state_e;
  state_e          state_q;
  // An index, not an FSM: yosys's fsm pass would recode it (a minute of
  // CPU for 256 states, and no better logic). So for infl_q.
  (* fsm_encoding = "none" *) logic [EW-1:0] rr_q;  // the entry last sent
  logic [NENT-1:0] dlv;
  logic [EW-1:0]   sel;
  logic            any, look;
  assign dlv = pend_q & ~mask_q & ok_e;
  kite_rr_pick #(.N(NENT)) u_pick (.req_i(dlv), .last_i(rr_q), .valid_o(any), .idx_o(sel));
  assign look = state_q == S_IDLE && any;

  // ---------------------------------------------------------------- host decode
  logic           h_fn_ok, h_tbl, h_pba, h_ctl, h_rd, h_wr;
  logic [8:0]     h_ent;                      // table entry number
  logic [1:0]     h_dw;
  logic [10:0]    h_word;                     // PBA dword
  logic [EW-1:0]  h_idx;
  logic [31:0]    h_pba_word;
  logic [32*PFW-1:0] pf_pend;

  assign h_fn_ok = 32'(req_fn_i) <= NVF;
  assign h_ent   = req_addr_i[12:4];
  assign h_dw    = req_addr_i[3:2];
  assign h_word  = req_addr_i[12:2];
  assign h_tbl   = h_fn_ok && !req_addr_i[13] &&
                   32'(h_ent) < (req_fn_i == '0 ? PF_VEC : VF_VEC);
  assign h_pba   = h_fn_ok && req_addr_i[13] &&
                   32'(h_word) < (req_fn_i == '0 ? PFW : 32'd1);
  assign h_ctl   = h_tbl && h_dw == 2'd3;
  assign h_idx   = ent_idx(req_fn_i, 16'(h_ent));
  assign pf_pend = (32 * PFW)'(pend_q[PF_VEC-1:0]);
  assign h_pba_word = req_fn_i == '0 ? pf_pend[32 * PWW'(h_word) +: 32]
                                     : 32'(pend_q[ent_idx(req_fn_i, '0) +: VF_VEC]);

  // The lookup has the RAM's read port in its cycle.
  assign req_ready_o = !look;
  assign h_rd = req_valid_i && req_ready_o && !req_write_i;
  assign h_wr = req_valid_i && req_ready_o && req_write_i;

  // ---------------------------------------------------------------- table RAM
  // Per entry: [31:0] address low (bits 1:0 stored 0), [63:32] high, [95:64] data.
  logic [EW-1:0] ram_raddr;
  logic [11:0]   ram_we;
  logic [95:0]   ram_wdata, ram_rd_q;
  logic [31:0]   wd, wd_be;

  assign ram_raddr = look ? sel : h_idx;
  assign wd        = h_dw == 2'd0 ? {req_wdata_i[31:2], 2'b00} : req_wdata_i;
  assign wd_be     = wd & {{8{req_be_i[3]}}, {8{req_be_i[2]}}, {8{req_be_i[1]}}, {8{req_be_i[0]}}};
  always_comb begin
    ram_we    = '0;
    ram_wdata = '0;
    if (h_wr && h_tbl && !h_ctl) begin
      if (live_q[h_idx]) begin
        ram_we    = 12'(req_be_i) << (4 * h_dw);
        ram_wdata = {3{wd}};
      end else begin
        // First write since reset: the whole entry, the other dwords 0.
        ram_we    = '1;
        ram_wdata = 96'(wd_be) << (32 * h_dw);
      end
    end
  end

  (* ram_style = "block" *) logic [95:0] ram_q [NENT];
  always_ff @(posedge clk_i) begin
    for (int j = 0; j < 12; j++)
      if (ram_we[j]) ram_q[h_idx][8*j +: 8] <= ram_wdata[8*j +: 8];
    ram_rd_q <= ram_q[ram_raddr];
  end

  // ---------------------------------------------------------------- requests
  logic          r_ok, r_drop;
  logic [EW-1:0] r_idx;
  assign msix_ready_o = 1'b1;                 // every request sets a pending bit or is dropped
  assign r_ok   = msix_valid_i && en_q[msix_fn_i] && 32'(msix_fn_i) <= NVF &&
                  32'(msix_vector_i) < (msix_fn_i == '0 ? PF_VEC : VF_VEC);
  assign r_drop = msix_valid_i && !r_ok;
  assign r_idx  = ent_idx(msix_fn_i, msix_vector_i);

  // ---------------------------------------------------------------- message in flight
  (* fsm_encoding = "none" *) logic [EW-1:0] infl_q;  // its entry
  logic [FN_W-1:0] infl_fn_q;
  logic            stale_q;                   // its function had an FLR since issue
  logic [NFX-1:0]  flr_q;                     // last cycle's FLRs
  logic            live_rd_q;                 // the entry read was written since reset
  logic            fail_set;
  assign fail_set = state_q == S_WAIT && cfg_interrupt_msi_fail_i && !stale_q;

  // Written bit by bit, each index compared with the entry's number: through
  // a variable index (pend_d[sel] = 1'b0), yosys 0.23 checks the index
  // against the vector's range with a 32-bit carry chain, on the path from
  // the pick to pend_q.
  always_comb begin
    for (int i = 0; i < NENT; i++) begin
      // A pick clears its pending bit, also against a request for it in this cycle.
      pend_d[i] = (pend_q[i] || (r_ok && r_idx == EW'(i)) || (fail_set && infl_q == EW'(i))) &&
                  !(look && sel == EW'(i)) && !flr_e[i];
      mask_d[i] = (h_wr && h_ctl && req_be_i[0] && h_idx == EW'(i) ? req_wdata_i[0] : mask_q[i]) ||
                  flr_e[i];
      live_d[i] = (live_q[i] || (h_wr && h_tbl && !h_ctl && h_idx == EW'(i))) && !flr_e[i];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mask_q    <= '1;
      pend_q    <= '0;
      live_q    <= '0;
      state_q   <= S_IDLE;
      rr_q      <= '1;                       // entry 0 first
      infl_q    <= '0;
      infl_fn_q <= '0;
      stale_q   <= 1'b0;
      flr_q     <= '0;
      live_rd_q <= 1'b0;
      drop_o    <= 1'b0;
      cfg_interrupt_msix_address_o        <= '0;
      cfg_interrupt_msix_data_o           <= '0;
      cfg_interrupt_msi_function_number_o <= '0;
    end else begin
      mask_q <= mask_d;
      pend_q <= pend_d;
      live_q <= live_d;
      drop_o <= r_drop;
      // An FLR in the issue cycle is caught in S_READ, from flr_q: stale_q
      // is first read in S_WAIT, and the pick's result stays off this path.
      flr_q <= flr_x;
      if (state_q != S_IDLE && flr_x[infl_fn_q]) stale_q <= 1'b1;
      if (state_q == S_READ && flr_q[infl_fn_q]) stale_q <= 1'b1;
      unique case (state_q)
        S_IDLE:
          if (look) begin
            state_q   <= S_READ;
            infl_q    <= sel;
            infl_fn_q <= ent_fn(sel);
            stale_q   <= 1'b0;
            live_rd_q <= live_q[sel];
            rr_q      <= sel;
          end
        S_READ: begin
          // Latched here and held until the next message.
          cfg_interrupt_msix_address_o <= live_rd_q ? ram_rd_q[63:0] : '0;
          cfg_interrupt_msix_data_o    <= live_rd_q ? ram_rd_q[95:64] : '0;
          cfg_interrupt_msi_function_number_o <=
              infl_fn_q == '0 ? 8'd0 : VF_FN_BASE + 8'(infl_fn_q) - 8'd1;
          state_q <= S_SEND;
        end
        S_SEND: state_q <= S_WAIT;
        S_WAIT: if (cfg_interrupt_msi_sent_i || cfg_interrupt_msi_fail_i) state_q <= S_IDLE;
        default: state_q <= S_IDLE;
      endcase
    end
  end
  assign cfg_interrupt_msix_int_o = state_q == S_SEND;

  // ---------------------------------------------------------------- read answer
  logic        rd_ram_q;                      // answer from the RAM word read
  logic [1:0]  rd_dw_q;
  logic [31:0] rd_val_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rsp_valid_o <= 1'b0;
      rd_ram_q    <= 1'b0;
      rd_dw_q     <= '0;
      rd_val_q    <= '0;
    end else begin
      rsp_valid_o <= h_rd;
      if (h_rd) begin
        rd_ram_q <= h_tbl && !h_ctl && live_q[h_idx];
        rd_dw_q  <= h_dw;
        rd_val_q <= h_ctl ? {31'd0, mask_q[h_idx]} : h_pba ? h_pba_word : '0;
      end
    end
  end

  always_comb begin
    rsp_rdata_o = rd_val_q;
    if (rd_ram_q) begin
      unique case (rd_dw_q)
        2'd0:    rsp_rdata_o = ram_rd_q[31:0];
        2'd1:    rsp_rdata_o = ram_rd_q[63:32];
        default: rsp_rdata_o = ram_rd_q[95:64];
      endcase
    end
  end

  // PFs 1-3 and VFs past NVF do not exist on the card; addresses are dword aligned.
  logic unused;
  assign unused = ^{cfg_interrupt_msix_enable_i[3:1], cfg_interrupt_msix_mask_i[3:1],
                    cfg_interrupt_msix_vf_enable_i[251:NVF], cfg_interrupt_msix_vf_mask_i[251:NVF],
                    req_addr_i[1:0]};

endmodule : kite_msix
