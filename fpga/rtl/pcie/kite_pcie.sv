// Kite host interface on the AMD UltraScale+ PCIe Gen3 x16 integrated block
// (PCIE40E4 via pcie4_uscale_plus, PG213) with 512-bit AXI-Stream at 250 MHz
// for the Alveo U250. Every interface is in DWORD-aligned mode. RC takes the
// core's 4-TLP straddle (fpga/syn/vivado/ip.tcl; a stream without straddle
// is read the same way); RQ's 2-TLP straddle starts a request at DW 8 of a
// write's last beat when the write ends at DW 7 or before: a waiting read
// request, else the next write (kite_pcie_wr); CQ and CC are not straddled.
//
// * kite_pcie_rc: the RC stream cut into completion pieces (straddle).
// * kite_pcie_rd: DMA reads, RQ read requests + RC completions reordered.
// * kite_pcie_wr: DMA writes, RQ write requests.
// * kite_pcie_cq: BAR MMIO, CQ requests in, CC completions out.
//
// Functions: the card numbers its functions PF 0 and VFs 1..NVF; the core
// numbers PF0's VFs from its First VF Offset (PG213 puts VFs at function
// numbers 4..255; fpga/syn/vivado/ip.tcl sets the offset to VF_FN_BASE). The
// client's requester function (rd/wr_req_fn_i) goes out in the core's
// numbering (RQ descriptor [87:80], the core adding its bus number); a CQ
// request's target function ([111:104]) comes to the MMIO port in the card's,
// 8'hFF for a function the card does not have (PFs 1..3), and its completion
// names the core's function as completer.
//
// RQ is shared at TLP granularity, alternating between reads and writes when
// both wait; a waiting read request also rides in the upper half of a write
// TLP's last beat when that half is free (an RX frame of 60 bytes ends its
// data write at DW 2, so TX's WQE and gather reads cost no beat of their
// own then). With no read waiting the write engine may start its next TLP
// there; a write stream with such shared beats holds RQ until a beat that
// ends it, after which a waiting read goes first. Reads and writes are independent channels: a read passes
// writes that have not yet reached RQ, so a client orders read-after-write
// by waiting for wr_done_o.
//
// PG213 512-bit RQ tuser: [7:0] first BE, [15:8] last BE (4 bits each for
// the first and second TLP starting in the beat), [19:16] addr_offset (0 in
// DWORD-aligned mode), [21:20] is_sop, [23:22] is_sop0_ptr, [25:24]
// is_sop1_ptr (0: DW 0, 2: DW 8), [27:26] is_eop, [31:28] is_eop0_ptr,
// [35:32] is_eop1_ptr, [36] discontinue; the rest (TPH, sequence numbers,
// parity) is 0. RC: TLPs delimited by tuser's is_sop/is_eop (kite_pcie_rc);
// tlast and tkeep are not used (straddle sets them to 0 and all ones).
module kite_pcie #(
  parameter int unsigned TAGS  = 256,  // with Extended Tag Field Enable, else 32 (kite_pcie_rd)
  parameter int unsigned MRRS  = 512,
  parameter int unsigned MPS   = 256,
  parameter int unsigned ID_W  = 8,
  parameter int unsigned LEN_W = 16,
  parameter logic [7:0]  VF_FN_BASE = 8'd4   // core's function number of VF 1 (ip.tcl)
) (
  input  logic             clk_i,
  input  logic             rst_ni,

  // DMA read client
  input  logic             rd_req_valid_i,
  output logic             rd_req_ready_o,
  input  logic [ID_W-1:0]  rd_req_id_i,
  input  logic [7:0]       rd_req_fn_i,    // requesting function (card's: PF 0, VFs 1..)
  input  logic [63:0]      rd_req_addr_i,
  input  logic [LEN_W-1:0] rd_req_len_i,
  // From the core's configuration status interface (Device Control).
  input  logic [1:0]       cfg_max_payload_i,
  input  logic [2:0]       cfg_max_read_req_i,
  input  logic             cfg_ext_tag_i,   // Extended Tag Field Enable (kite_pcie_fn)
  output logic             rd_rsp_valid_o,
  input  logic             rd_rsp_ready_i,
  output logic [ID_W-1:0]  rd_rsp_id_o,
  output logic [511:0]     rd_rsp_data_o,
  output logic [63:0]      rd_rsp_keep_o,
  output logic             rd_rsp_last_o,
  output logic             rd_rsp_err_o,

  // DMA write client
  input  logic             wr_req_valid_i,
  output logic             wr_req_ready_o,
  input  logic [ID_W-1:0]  wr_req_id_i,
  input  logic [7:0]       wr_req_fn_i,
  input  logic [63:0]      wr_req_addr_i,
  input  logic [LEN_W-1:0] wr_req_len_i,
  input  logic             wr_data_valid_i,
  output logic             wr_data_ready_o,
  input  logic [511:0]     wr_data_i,
  output logic             wr_done_o,
  output logic [ID_W-1:0]  wr_done_id_o,
  output logic             wr_done_err_o,

  // PCIe core: requester request (s_axis_rq_*)
  output logic [511:0]     rq_tdata_o,
  output logic [15:0]      rq_tkeep_o,
  output logic             rq_tlast_o,
  output logic [136:0]     rq_tuser_o,
  output logic             rq_tvalid_o,
  input  logic             rq_tready_i,

  // PCIe core: requester completion (m_axis_rc_*)
  input  logic [511:0]     rc_tdata_i,
  input  logic [15:0]      rc_tkeep_i,
  input  logic             rc_tlast_i,
  input  logic [160:0]     rc_tuser_i,
  input  logic             rc_tvalid_i,
  output logic             rc_tready_o,

  // PCIe core: completer request (m_axis_cq_*)
  input  logic [511:0]     cq_tdata_i,
  input  logic [15:0]      cq_tkeep_i,
  input  logic             cq_tlast_i,
  input  logic [182:0]     cq_tuser_i,
  input  logic             cq_tvalid_i,
  output logic             cq_tready_o,

  // PCIe core: completer completion (s_axis_cc_*)
  output logic [511:0]     cc_tdata_o,
  output logic [15:0]      cc_tkeep_o,
  output logic             cc_tlast_o,
  output logic [80:0]      cc_tuser_o,
  output logic             cc_tvalid_o,
  input  logic             cc_tready_i,

  // BAR MMIO port (see kite_pcie_cq)
  output logic             mmio_req_valid_o,
  output logic             mmio_req_write_o,
  output logic [7:0]       mmio_req_func_o,
  output logic [2:0]       mmio_req_bar_o,
  output logic [31:0]      mmio_req_addr_o,
  output logic [63:0]      mmio_req_wdata_o,
  output logic [7:0]       mmio_req_be_o,
  input  logic             mmio_rsp_valid_i,
  input  logic [63:0]      mmio_rsp_data_i,

  // Error counters
  output logic [31:0]      cnt_rc_unexp_tag_o,
  output logic [31:0]      cnt_rc_cpl_err_o,
  output logic [31:0]      cnt_rc_bad_o,
  output logic [31:0]      cnt_rd_zero_len_o,
  output logic [31:0]      cnt_wr_zero_len_o,
  output logic [31:0]      cnt_cq_unsup_o,
  output logic [$clog2(TAGS):0] tags_used_o,
  output logic [$clog2(TAGS):0] tags_pool_o     // read tags the host allows (32 or TAGS)
);

  // Card <-> core function numbers (the testbenches' and co-simulation's
  // copy: fpga/model/include/kite/pcie_fn.hpp). The core's PFs 1..3 are
  // not on the card: 8'hff. (No "return": yosys 0.23 does not parse it.)
  function automatic logic [7:0] core_fn(input logic [7:0] card);
    core_fn = card == 8'd0 ? 8'd0 : card + VF_FN_BASE - 8'd1;
  endfunction
  function automatic logic [7:0] card_fn(input logic [7:0] core);
    card_fn = core == 8'd0 ? 8'd0 : core < VF_FN_BASE ? 8'hff : core - VF_FN_BASE + 8'd1;
  endfunction

  logic [7:0] rd_core_fn, wr_core_fn, cq_core_fn;
  assign rd_core_fn = core_fn(rd_req_fn_i);
  assign wr_core_fn = core_fn(wr_req_fn_i);
  assign mmio_req_func_o = card_fn(cq_core_fn);

  logic         rdq_valid, rdq_ready;
  logic [127:0] rdq_desc;
  logic [3:0]   rdq_fbe, rdq_lbe;

  logic         pc_valid, pc_sop, pc_eop;
  logic [95:0]  pc_desc;
  logic [511:0] pc_data;

  kite_pcie_rc u_rc (
    .clk_i, .rst_ni,
    .rc_tdata_i, .rc_tuser_i, .rc_tvalid_i, .rc_tready_o,
    .pc_valid_o(pc_valid), .pc_sop_o(pc_sop), .pc_eop_o(pc_eop), .pc_desc_o(pc_desc), .pc_data_o(pc_data)
  );

  kite_pcie_rd #(.TAGS(TAGS), .MRRS(MRRS), .ID_W(ID_W), .LEN_W(LEN_W)) u_rd (
    .clk_i, .rst_ni,
    .rd_req_valid_i, .rd_req_ready_o, .rd_req_id_i, .rd_req_fn_i(rd_core_fn), .rd_req_addr_i, .rd_req_len_i,
    .cfg_max_read_req_i,
    .cfg_ext_tag_i,
    .rd_rsp_valid_o, .rd_rsp_ready_i, .rd_rsp_id_o, .rd_rsp_data_o, .rd_rsp_keep_o,
    .rd_rsp_last_o, .rd_rsp_err_o,
    .rq_valid_o(rdq_valid), .rq_ready_i(rdq_ready), .rq_desc_o(rdq_desc),
    .rq_first_be_o(rdq_fbe), .rq_last_be_o(rdq_lbe),
    .pc_valid_i(pc_valid), .pc_sop_i(pc_sop), .pc_eop_i(pc_eop), .pc_desc_i(pc_desc), .pc_data_i(pc_data),
    .cnt_unexp_tag_o(cnt_rc_unexp_tag_o), .cnt_cpl_err_o(cnt_rc_cpl_err_o),
    .cnt_cpl_bad_o(cnt_rc_bad_o), .cnt_zero_len_o(cnt_rd_zero_len_o), .tags_used_o, .tags_pool_o
  );

  logic         wrq_valid, wrq_ready, wrq_sop, wrq_sop_hi, wrq_sop2, wrq_eop_v, wrq_last;
  logic [511:0] wrq_data;
  logic [15:0]  wrq_keep;
  logic [3:0]   wrq_eop;
  logic [7:0]   wrq_fbe, wrq_lbe;

  kite_pcie_wr #(.MPS(MPS), .ID_W(ID_W), .LEN_W(LEN_W)) u_wr (
    .clk_i, .rst_ni,
    .wr_req_valid_i, .wr_req_ready_o, .wr_req_id_i, .wr_req_fn_i(wr_core_fn), .wr_req_addr_i, .wr_req_len_i,
    .cfg_max_payload_i,
    .wr_data_valid_i, .wr_data_ready_o, .wr_data_i,
    .wr_done_o, .wr_done_id_o, .wr_done_err_o,
    .strad_en_i(!rdq_valid),
    .rq_valid_o(wrq_valid), .rq_ready_i(wrq_ready), .rq_data_o(wrq_data),
    .rq_keep_o(wrq_keep), .rq_sop_o(wrq_sop), .rq_sop_hi_o(wrq_sop_hi), .rq_sop2_o(wrq_sop2),
    .rq_eop_o(wrq_eop_v), .rq_eop_ptr_o(wrq_eop), .rq_last_o(wrq_last),
    .rq_first_be_o(wrq_fbe), .rq_last_be_o(wrq_lbe),
    .cnt_zero_len_o(cnt_wr_zero_len_o)
  );

  kite_pcie_cq u_cq (
    .clk_i, .rst_ni,
    .cq_tdata_i, .cq_tuser_i, .cq_tlast_i, .cq_tvalid_i, .cq_tready_o,
    .cc_tdata_o, .cc_tuser_o, .cc_tkeep_o, .cc_tlast_o, .cc_tvalid_o, .cc_tready_i,
    .mmio_req_valid_o, .mmio_req_write_o, .mmio_req_func_o(cq_core_fn), .mmio_req_bar_o,
    .mmio_req_addr_o, .mmio_req_wdata_o, .mmio_req_be_o, .mmio_rsp_valid_i, .mmio_rsp_data_i,
    .cnt_unsup_o(cnt_cq_unsup_o)
  );

  // RQ arbiter: a write TLP holds RQ from its first beat to its last, and a
  // beat offered but not taken stays offered (AXI-Stream).
  // A read rides on a write's last beat (ride) only as first offered: an
  // offered beat that waits keeps its contents. wrq_last: the beat ends the
  // write stream (no TLP of it goes on), so its upper half is free when the
  // write ends by DW 7.
  logic wr_lock_q, prefer_rd_q, grant_wr, stall_q, stall_wr_q, stall_ride_q, ride;
  assign grant_wr  = wr_lock_q || (stall_q ? stall_wr_q : (wrq_valid && (!rdq_valid || !prefer_rd_q)));
  assign ride      = stall_q ? stall_ride_q : (grant_wr && wrq_valid && wrq_last && !wrq_eop[3] && rdq_valid);
  assign wrq_ready = grant_wr && rq_tready_i;
  assign rdq_ready = (!grant_wr || ride) && rq_tready_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_lock_q   <= 1'b0;
      prefer_rd_q <= 1'b0;
      stall_q     <= 1'b0;
      stall_wr_q  <= 1'b0;
      stall_ride_q <= 1'b0;
    end else begin
      stall_q    <= rq_tvalid_o && !rq_tready_i;
      stall_wr_q <= grant_wr;
      stall_ride_q <= ride;
      if (wrq_valid && wrq_ready) begin
        wr_lock_q <= !wrq_last;
        if (wrq_last) prefer_rd_q <= 1'b1;
      end
      if (rdq_valid && rdq_ready) prefer_rd_q <= 1'b0;
    end
  end

  always_comb begin
    if (grant_wr && ride) begin
      // The write ends in the lower half; the read's descriptor at DW 8.
      rq_tvalid_o = 1'b1;
      rq_tdata_o  = {128'd0, rdq_desc, wrq_data[255:0]};
      rq_tkeep_o  = 16'h0fff;
      rq_tlast_o  = 1'b1;
      // (It ends the write stream, so the write started here, if at all,
      // at DW 0.)
      if (wrq_sop)   // the write starts here too: two TLP starts
        rq_tuser_o = {100'd0, 1'b0, 4'd11, wrq_eop, 2'b11, 2'd2, 2'd0, 2'b11, 4'd0,
                      rdq_lbe, wrq_lbe[3:0], rdq_fbe, wrq_fbe[3:0]};
      else
        rq_tuser_o = {100'd0, 1'b0, 4'd11, wrq_eop, 2'b11, 2'd0, 2'd2, 2'b01, 4'd0,
                      4'd0, rdq_lbe, 4'd0, rdq_fbe};
    end else if (grant_wr) begin
      // Up to two write TLPs start (is_sop, at DW 0 or 8) and one ends.
      rq_tvalid_o = wrq_valid;
      rq_tdata_o  = wrq_data;
      rq_tkeep_o  = wrq_keep;
      rq_tlast_o  = wrq_last;
      rq_tuser_o  = {100'd0, 1'b0, 4'd0, wrq_eop, 1'b0, wrq_eop_v, wrq_sop2 ? 2'd2 : 2'd0,
                     wrq_sop_hi ? 2'd2 : 2'd0, wrq_sop2, wrq_sop, 4'd0, wrq_lbe, wrq_fbe};
    end else begin
      rq_tvalid_o = rdq_valid;
      rq_tdata_o  = {384'd0, rdq_desc};
      rq_tkeep_o  = 16'h000f;
      rq_tlast_o  = 1'b1;
      rq_tuser_o  = {100'd0, 1'b0, 4'd0, 4'd3, 1'b0, 1'b1, 2'b00, 2'b00, 1'b0, 1'b1,
                     4'd0, 4'd0, rdq_lbe, 4'd0, rdq_fbe};
    end
  end

  logic unused_pcie;
  assign unused_pcie = ^{rc_tkeep_i, rc_tlast_i, cq_tkeep_i};

endmodule : kite_pcie
