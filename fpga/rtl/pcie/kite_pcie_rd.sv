// DMA read engine on the UltraScale+ PCIe requester interfaces (PG213,
// 512-bit, DWORD-aligned mode). Completions come as kite_pcie_rc's pieces
// (one TLP's descriptor and up to 64 payload bytes per cycle), so the core's
// RC straddle, with or without, is that block's concern.
//
// Tags: TAGS (up to 256, 8-bit tags) while the host has set Extended Tag
// Field Enable in Device Control (cfg_ext_tag_i), else at most 32 (5-bit
// tags, PCIe "Tag"). The pool size follows the input only while no tag is
// in use (it is latched then, and the ring restarts at tag 0), so a host
// that changes the bit under traffic gets it at the next idle cycle.
//
// Client side: a read request (id, 64-bit address, length in bytes) is split
// into memory read TLPs at addresses aligned to the negotiated read request
// size (at most MRRS; it divides 4 KiB, so no TLP crosses a 4 KiB boundary). Each TLP owns one PCIe tag and one MRRS-byte
// slot of the reorder buffer; tags are handed out and retired in request
// order, so the tag pool is a ring (alloc pointer, retire pointer) and the
// pool size is the reorder buffer size: completions are never back-pressured
// (the engine takes a piece every cycle; kite_pcie_rc holds the core back
// only while a beat of several short TLPs is split into pieces).
//
// Completions (RC) may arrive in any order between tags and split at any
// boundary (the host splits at its RCB). Each is checked against the tag's
// state: tag outstanding, byte count equal to the bytes still expected, lower
// address equal to the next expected address. Its payload is rotated into
// the slot at (address mod MRRS): a 64-byte piece straddles at most two slot
// words, which live in two RAM banks (even/odd words), so every piece is
// written in one cycle.
//
// Responses leave in request order, address-aligned: byte lane i of a beat
// holds the byte at an address = i (mod 64); rd_rsp_keep_o marks the bytes of
// the request. rd_rsp_err_o on the last beat is the request's status.
//
// Bad completions never hang the engine:
// * unknown tag / tag not outstanding: dropped, cnt_unexp_tag_o;
// * completion status not SC, PG213 error code not 0 (this includes code
//   1001, the core's completion timeout retiring a lost request), poisoned:
//   the TLP's request ends with error, cnt_cpl_err_o;
// * byte count or lower address not the expected ones, or no payload: the
//   TLP's request ends with error, cnt_cpl_bad_o;
// * a request of length 0 answers one beat with keep 0 and error,
//   cnt_zero_len_o.
// A tag ended by an error is reused once its request has been answered; a
// straggler for it then meets a new request and fails its checks (so that
// request ends with an error) unless it matches its byte count and address.
// Split completions must arrive in address order per tag (PCIe ordering).
module kite_pcie_rd #(
  parameter int unsigned TAGS  = 32,   // PCIe tags and reorder slots (<= 256)
  parameter int unsigned MRRS  = 512,  // max read request size, bytes (128..4096, power of 2)
  parameter int unsigned ID_W  = 8,
  parameter int unsigned LEN_W = 16
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,

  input  logic                     rd_req_valid_i,
  output logic                     rd_req_ready_o,
  input  logic [ID_W-1:0]          rd_req_id_i,
  input  logic [7:0]               rd_req_fn_i,   // requesting function (descriptor [87:80])
  input  logic [63:0]              rd_req_addr_i,
  input  logic [LEN_W-1:0]         rd_req_len_i,
  // Device Control Max_Read_Request_Size from the core (cfg_max_read_req:
  // 128 << code bytes), used up to MRRS; change it only while idle.
  input  logic [2:0]               cfg_max_read_req_i,
  // Device Control Extended Tag Field Enable (kite_pcie_fn).
  input  logic                     cfg_ext_tag_i,

  output logic                     rd_rsp_valid_o,
  input  logic                     rd_rsp_ready_i,
  output logic [ID_W-1:0]          rd_rsp_id_o,
  output logic [511:0]             rd_rsp_data_o,
  output logic [63:0]              rd_rsp_keep_o,
  output logic                     rd_rsp_last_o,
  output logic                     rd_rsp_err_o,

  // One memory read descriptor (PG213 "Requester Request Descriptor").
  output logic                     rq_valid_o,
  input  logic                     rq_ready_i,
  output logic [127:0]             rq_desc_o,
  output logic [3:0]               rq_first_be_o,
  output logic [3:0]               rq_last_be_o,

  // Completion pieces from kite_pcie_rc (never back-pressured).
  input  logic                     pc_valid_i,
  input  logic                     pc_sop_i,
  input  logic                     pc_eop_i,
  input  logic [95:0]              pc_desc_i,
  input  logic [511:0]             pc_data_i,

  output logic [31:0]              cnt_unexp_tag_o,
  output logic [31:0]              cnt_cpl_err_o,
  output logic [31:0]              cnt_cpl_bad_o,
  output logic [31:0]              cnt_zero_len_o,
  output logic [$clog2(TAGS):0]    tags_used_o,
  output logic [$clog2(TAGS):0]    tags_pool_o    // 32 or TAGS (cfg_ext_tag_i as taken)
);

  localparam int unsigned TW  = $clog2(TAGS);
  localparam int unsigned MW  = $clog2(MRRS);      // byte offset in a slot
  localparam int unsigned WPS = MRRS / 64;         // words per slot
  localparam int unsigned WW  = $clog2(WPS);       // word index in a slot
  localparam int unsigned BD  = TAGS * WPS / 2;    // words per bank
  localparam int unsigned BW  = $clog2(BD);

  // ---------------------------------------------------------------- splitter
  logic             busy_q;
  logic [63:0]      addr_q;
  logic [LEN_W-1:0] rem_q;
  logic [ID_W-1:0]  id_q;
  logic [7:0]       fn_q;
  logic [TW:0]      used_q;
  logic [TW-1:0]    ap_q, rp_q;   // alloc (next tag) and retire pointers
  logic [TW-1:0]    tmask_q, tmask_d;   // tag pool size less one (a power of 2)
  logic             pool_set;           // idle: take the new pool size, restart at 0
  logic [MW:0]      room, chunk;
  logic [MW-1:0]    end_off;
  logic [MW+1:0]    dw_sum;
  logic [10:0]      dw;
  logic             is_last, zero, issue;
  logic [3:0]       fbe, lbe;

  // A request is taken while the splitter is idle or in the cycle it issues
  // the current one's last TLP, so single-TLP requests go one per cycle.
  // issue depends on registers only (the RQ FIFO's count, not rq_ready_i),
  // so nothing from the core's tready reaches rd_req_ready_o.
  logic take;
  assign rd_req_ready_o = !busy_q || (issue && is_last);
  assign take           = rd_req_valid_i && rd_req_ready_o;
  logic [MW:0]  mrrs_eff;
  logic [MW-1:0] mrrs_mask;
  logic [15:0]  mrrs_cfg;
  assign mrrs_cfg = 16'd128 << cfg_max_read_req_i;
  assign mrrs_eff = mrrs_cfg > 16'(MRRS) ? (MW+1)'(MRRS) : mrrs_cfg[MW:0];
  assign mrrs_mask = mrrs_eff[MW-1:0] - MW'(1);
  assign room    = mrrs_eff - {1'b0, addr_q[MW-1:0] & mrrs_mask};
  assign chunk   = (rem_q < LEN_W'(room)) ? rem_q[MW:0] : room;
  assign zero    = rem_q == '0;
  assign is_last = rem_q <= LEN_W'(chunk);
  assign end_off = addr_q[MW-1:0] + chunk[MW-1:0] - MW'(1);
  assign dw_sum  = {{MW{1'b0}}, addr_q[1:0]} + {1'b0, chunk} + (MW+2)'(3);
  assign dw      = 11'(dw_sum[MW+1:2]);
  // First/last DW byte enables (a 1-DW request has last BE 0). It is one
  // DW (dw == 1) when a + chunk <= 4 (a = addr mod 4), i.e. when
  // a + rem <= 4 or a + room <= 4, the latter when the address is in the
  // last DW of its MRRS block: both straight from the registers, not after
  // the room, chunk and DW count sums, which led the path to the RQ FIFO.
  // (A zero-length request, chunk 0, writes no descriptor.)
  logic       one_dw;
  logic [2:0] a_room;   // 4 - a
  assign a_room = 3'd4 - {1'b0, addr_q[1:0]};
  assign one_dw = rem_q <= LEN_W'(a_room) ||
                  &(addr_q[MW-1:2] | ~mrrs_mask[MW-1:2]);
  assign {lbe, fbe} = kite_rtl_pkg::pcie_be(addr_q[1:0], end_off[1:0], one_dw);
  localparam int unsigned TAGS5 = TAGS < 32 ? TAGS : 32;
  assign tmask_d  = cfg_ext_tag_i ? TW'(TAGS - 1) : TW'(TAGS5 - 1);
  assign pool_set = !busy_q && used_q == '0 && tmask_q != tmask_d;
  // RQ descriptors wait in a two-entry FIFO ({descriptor, first BE, last BE}).
  logic [135:0] rqf_q [2];
  logic [1:0]   rqf_cnt_q;
  logic         rqf_wp_q, rqf_rp_q, rqf_pop;
  assign issue   = busy_q && (used_q <= {1'b0, tmask_q}) && rqf_cnt_q != 2'd2;
  assign rqf_pop = rq_valid_o && rq_ready_i;
  assign rq_valid_o = rqf_cnt_q != 2'd0;
  assign {rq_desc_o, rq_first_be_o, rq_last_be_o} = rqf_q[rqf_rp_q];
  assign tags_pool_o = {1'b0, tmask_q} + 1'b1;

  // Per-tag state. pend: completions expected; done: ready for readout.
  logic [TAGS-1:0] pend_q, done_q, err_q;
  logic [12:0]     rem_b_q [TAGS];   // bytes still expected
  logic [11:0]     nla_q   [TAGS];   // next expected lower address
  logic [ID_W-1:0] rec_id_q   [TAGS];
  logic            rec_last_q [TAGS];
  logic            rec_null_q [TAGS];
  logic [WW-1:0]   rec_lo_q   [TAGS];
  logic [WW-1:0]   rec_hi_q   [TAGS];
  logic [5:0]      rec_loff_q [TAGS];
  logic [5:0]      rec_hend_q [TAGS];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q        <= 1'b0;
      addr_q        <= '0;
      rem_q         <= '0;
      id_q          <= '0;
      fn_q          <= '0;
      rqf_cnt_q     <= '0;
      rqf_wp_q      <= 1'b0;
      rqf_rp_q      <= 1'b0;
      ap_q          <= '0;
      tmask_q       <= TW'(TAGS5 - 1);
    end else begin
      if (pool_set) begin
        tmask_q <= tmask_d;
        ap_q    <= '0;
      end
      rqf_cnt_q <= rqf_cnt_q + 2'(issue && !zero) - 2'(rqf_pop);
      if (rqf_pop) rqf_rp_q <= !rqf_rp_q;
      if (issue && !zero) rqf_wp_q <= !rqf_wp_q;
      if (issue) begin
        if (is_last) busy_q <= 1'b0;
        addr_q  <= addr_q + 64'(chunk);
        rem_q   <= rem_q - LEN_W'(chunk);
        ap_q    <= (ap_q + 1'b1) & tmask_q;
      end
      // After issue: a request taken at the last TLP's issue replaces it.
      if (take) begin
        busy_q  <= 1'b1;
        addr_q  <= rd_req_addr_i;
        rem_q   <= rd_req_len_i;
        id_q    <= rd_req_id_i;
        fn_q    <= rd_req_fn_i;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (issue && !zero) begin
      // PG213 Requester Request Descriptor: [1:0] AT, [63:2] address,
      // [74:64] DW count, [78:75] type (0000 memory read), [79] poison,
      // [87:80] requester function, [95:88] requester bus (the core
      // fills the bus and uses the function: requester ID enable 0, as
      // an endpoint), [103:96] tag, [119:104] completer ID, [120]
      // requester ID enable, [123:121] TC, [126:124] attr, [127] force
      // ECRC.
      rqf_q[rqf_wp_q] <= {1'b0, 3'b000, 3'b000, 1'b0, 16'h0000, 8'(ap_q),
                          8'h00, fn_q, 1'b0, 4'b0000, dw, addr_q[63:2], 2'b00, fbe, lbe};
    end
  end

  always_ff @(posedge clk_i) begin
    if (issue) begin
      rec_id_q[ap_q]   <= id_q;
      rec_last_q[ap_q] <= is_last;
      rec_null_q[ap_q] <= zero;
      rec_lo_q[ap_q]   <= zero ? '0 : addr_q[MW-1:6];
      rec_hi_q[ap_q]   <= zero ? '0 : end_off[MW-1:6];
      rec_loff_q[ap_q] <= addr_q[5:0];
      rec_hend_q[ap_q] <= end_off[5:0];
    end
  end

  // --------------------------------------------------- completion, stage 0
  // PG213 Requester Completion Descriptor: [11:0] lower address, [15:12]
  // error code, [28:16] byte count, [29] locked, [30] request completed,
  // [42:32] DW count, [45:43] status, [46] poisoned, [63:48] requester ID,
  // [71:64] tag, [87:72] completer ID, [91:89] TC, [94:92] attr.
  // Lane 0 of a piece is a payload DW: the first piece's holds the byte at
  // the lower address with its DW offset (DWORD-aligned mode).
  logic        sop;
  logic [11:0] c_la;
  logic [3:0]  c_ecode;
  logic [12:0] c_bc, c_dwb, c_n;
  logic [10:0] c_dw;
  logic [2:0]  c_st;
  logic        c_poison;
  logic [7:0]  c_tag;
  logic [TW-1:0] c_t;
  logic        c_tag_ok, c_errc, c_bad, c_good;

  assign sop      = pc_valid_i && pc_sop_i;
  assign c_la     = pc_desc_i[11:0];
  assign c_ecode  = pc_desc_i[15:12];
  assign c_bc     = pc_desc_i[28:16];
  assign c_dw     = pc_desc_i[42:32];
  assign c_st     = pc_desc_i[45:43];
  assign c_poison = pc_desc_i[46];
  assign c_tag    = pc_desc_i[71:64];
  assign c_t      = c_tag[TW-1:0];
  assign c_dwb    = {c_dw[10:0], 2'b00} - {11'd0, c_la[1:0]};
  assign c_n      = (c_dwb < c_bc) ? c_dwb : c_bc;
  assign c_tag_ok = ({8'd0, c_tag} >> TW) == 16'd0 && pend_q[c_t];
  assign c_errc   = c_ecode != 4'd0 || c_st != 3'd0 || c_poison;
  assign c_bad    = c_dw == 11'd0 || c_bc != rem_b_q[c_t] || c_la != nla_q[c_t];
  assign c_good   = sop && c_tag_ok && !c_errc && !c_bad;

  // Per-TLP state for the pieces after the first.
  logic          pk_good_q, pk_final_q;
  logic [TW-1:0] pk_t_q;
  logic [12:0]   pk_ve_q;
  logic [1:0]    pk_vs_q;
  logic [MW+1:0] pk_d_q;
  logic [6:0]    pk_beat_q;
  logic [MW+1:0] c_d;

  // Slot position of payload byte p (p = 0: the first DW's byte 0) is p + d,
  // d = la mod MRRS, DW aligned.
  assign c_d = {2'b00, c_la[MW-1:2], 2'b00};

  // Stage 1 registers.
  logic          s1_v_q, s1_good_q, s1_eop_q, s1_final_q;
  logic [511:0]  s1_data_q;
  logic [TW-1:0] s1_t_q;
  logic [6:0]    s1_beat_q;
  logic [12:0]   s1_ve_q;
  logic [1:0]    s1_vs_q;
  logic [MW+1:0] s1_d_q;
  logic [31:0]   cnt_unexp_q, cnt_err_q, cnt_bad_q, cnt_zero_q;
  logic          retire;   // readout frees tag rp_q

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pk_good_q   <= 1'b0;
      pk_final_q  <= 1'b0;
      pk_t_q      <= '0;
      pk_ve_q     <= '0;
      pk_vs_q     <= '0;
      pk_d_q      <= '0;
      pk_beat_q   <= '0;
      s1_v_q      <= 1'b0;
      s1_good_q   <= 1'b0;
      s1_eop_q    <= 1'b0;
      s1_final_q  <= 1'b0;
      s1_data_q   <= '0;
      s1_t_q      <= '0;
      s1_beat_q   <= '0;
      s1_ve_q     <= '0;
      s1_vs_q     <= '0;
      s1_d_q      <= '0;
      cnt_unexp_q <= '0;
      cnt_err_q   <= '0;
      cnt_bad_q   <= '0;
      cnt_zero_q  <= '0;
      pend_q      <= '0;
      done_q      <= '0;
      err_q       <= '0;
    end else begin
      s1_v_q <= pc_valid_i;
      if (pc_valid_i) begin
        s1_data_q <= pc_data_i;
        s1_eop_q  <= pc_eop_i;
        if (sop) begin
          pk_good_q  <= c_good;
          pk_final_q <= c_n == c_bc;
          pk_t_q     <= c_t;
          pk_vs_q    <= c_la[1:0];
          pk_ve_q    <= {11'd0, c_la[1:0]} + c_n;
          pk_d_q     <= c_d;
          pk_beat_q  <= 7'd1;
          s1_good_q  <= c_good;
          s1_final_q <= c_n == c_bc;
          s1_t_q     <= c_t;
          s1_vs_q    <= c_la[1:0];
          s1_ve_q    <= {11'd0, c_la[1:0]} + c_n;
          s1_d_q     <= c_d;
          s1_beat_q  <= '0;
        end else begin
          pk_beat_q  <= pk_beat_q + 7'd1;
          s1_good_q  <= pk_good_q;
          s1_final_q <= pk_final_q;
          s1_t_q     <= pk_t_q;
          s1_vs_q    <= pk_vs_q;
          s1_ve_q    <= pk_ve_q;
          s1_d_q     <= pk_d_q;
          s1_beat_q  <= pk_beat_q;
        end
      end
      if (sop) begin
        if (!c_tag_ok) cnt_unexp_q <= cnt_unexp_q + 32'd1;
        else if (c_errc) cnt_err_q <= cnt_err_q + 32'd1;
        else if (c_bad) cnt_bad_q <= cnt_bad_q + 32'd1;
      end
      if (issue && zero) cnt_zero_q <= cnt_zero_q + 32'd1;
      for (int unsigned i = 0; i < TAGS; i++) begin
        if (issue && TW'(i) == ap_q) begin
          pend_q[i] <= !zero;
          done_q[i] <= zero;
          err_q[i]  <= zero;
        end else if (sop && c_tag_ok && TW'(i) == c_t && (c_errc || c_bad)) begin
          pend_q[i] <= 1'b0;
          done_q[i] <= 1'b1;
          err_q[i]  <= 1'b1;
        end else begin
          if (c_good && TW'(i) == c_t && c_n == c_bc) pend_q[i] <= 1'b0;
          if (s1_v_q && s1_good_q && s1_eop_q && s1_final_q && TW'(i) == s1_t_q) done_q[i] <= 1'b1;
          if (retire && TW'(i) == rp_q) done_q[i] <= 1'b0;
        end
      end
    end
  end

  // The alloc and the completion never address the same tag (one is free,
  // the other outstanding), so both writes happen in the same cycle.
  always_ff @(posedge clk_i) begin
    if (c_good) begin
      rem_b_q[c_t] <= c_bc - c_n;
      nla_q[c_t]   <= c_la + c_n[11:0];
    end
    if (issue) begin
      rem_b_q[ap_q] <= 13'(chunk);
      nla_q[ap_q]   <= addr_q[11:0];
    end
  end

  assign cnt_unexp_tag_o = cnt_unexp_q;
  assign cnt_cpl_err_o   = cnt_err_q;
  assign cnt_cpl_bad_o   = cnt_bad_q;
  assign cnt_zero_len_o  = cnt_zero_q;

  // --------------------------------------------------- completion, stage 1
  // Byte lane L of piece b is payload byte 64b + L; the valid ones are
  // [la[1:0], ve). It goes to slot byte 64b + L + d: word b + (d >> 6) for
  // L < 64 - r, the next word otherwise (r = d mod 64).
  logic [5:0]     s1_r;
  logic [WW-1:0]  s1_w0, s1_w1;
  logic [63:0]    s1_v, s1_rv, s1_lo, s1_be0, s1_be1;
  logic [1023:0]  s1_dd;
  logic [511:0]   s1_rot;
  logic [127:0]   s1_vv;
  logic [MW+1:0]  s1_q;

  assign s1_r    = s1_d_q[5:0];
  assign s1_q    = s1_d_q >> 6;
  assign s1_w0   = WW'(s1_q) + WW'(s1_beat_q);
  assign s1_w1   = s1_w0 + WW'(1);
  // Lane l holds payload byte 64 * beat + l, valid in [vs, ve). Compared
  // by parts (vs < 4) instead of after a 13-bit add per lane: that add and
  // compare led the path to the banks' write enables.
  logic s1_b0, s1_gt, s1_eq;
  assign s1_b0 = s1_beat_q == '0;
  assign s1_gt = s1_ve_q[12:6] > s1_beat_q;
  assign s1_eq = s1_ve_q[12:6] == s1_beat_q;
  always_comb begin
    for (int unsigned l = 0; l < 64; l++) begin
      s1_v[l] = s1_good_q && (!s1_b0 || 2'(l) >= s1_vs_q || l >= 4) &&
                (s1_gt || (s1_eq && 6'(l) < s1_ve_q[5:0]));
    end
  end
  assign s1_dd  = {s1_data_q, s1_data_q} << {s1_r, 3'b000};
  assign s1_rot = s1_dd[1023:512];
  assign s1_vv  = {s1_v, s1_v} << s1_r;
  assign s1_rv  = s1_vv[127:64];
  assign s1_lo  = ~64'd0 << s1_r;
  assign s1_be0 = s1_rv & s1_lo;
  assign s1_be1 = s1_rv & ~s1_lo;

  // Two banks: even and odd slot words; one beat writes at most one of each.
  // Each bank is eight 64-bit memories with byte enables (the shape of a
  // byte-write block RAM, and small enough for yosys's front end).
  logic [BW-1:0] wa0, wa1;
  logic [63:0]   wbe0, wbe1;
  logic          w0_odd;

  assign w0_odd = s1_w0[0];
  always_comb begin
    if (!w0_odd) begin
      wa0  = BW'({s1_t_q, s1_w0} >> 1);
      wa1  = BW'({s1_t_q, s1_w1} >> 1);
      wbe0 = s1_be0;
      wbe1 = s1_be1;
    end else begin
      wa0  = BW'({s1_t_q, s1_w1} >> 1);
      wa1  = BW'({s1_t_q, s1_w0} >> 1);
      wbe0 = s1_be1;
      wbe1 = s1_be0;
    end
  end

  logic [BW-1:0] ra;
  logic [511:0]  rdata0_q, rdata1_q;

  for (genvar g = 0; g < 8; g++) begin : g_bank
    logic [63:0] mem0 [BD];
    logic [63:0] mem1 [BD];
    always_ff @(posedge clk_i) begin
      if (s1_v_q) begin
        for (int unsigned i = 0; i < 8; i++) begin
          if (wbe0[8*g+i]) mem0[wa0][8*i +: 8] <= s1_rot[64*g+8*i +: 8];
          if (wbe1[8*g+i]) mem1[wa1][8*i +: 8] <= s1_rot[64*g+8*i +: 8];
        end
      end
      rdata0_q[64*g +: 64] <= mem0[ra];
      rdata1_q[64*g +: 64] <= mem1[ra];
    end
  end

  // ----------------------------------------------------------------- readout
  localparam int unsigned FD = 4;   // response FIFO depth
  logic          mid_q, rd_v_q, rd_bank_q;
  logic [WW-1:0] cw_q, w;
  logic          err_acc_q, can_rd, r_last;
  logic [63:0]   r_keep;
  logic [ID_W-1:0] rm_id_q;
  logic [63:0]   rm_keep_q;
  logic          rm_last_q, rm_err_q;
  logic [2:0]    f_cnt_q;
  logic [1:0]    f_wp_q, f_rp_q;
  logic [511:0]  f_data_q [FD];
  logic [63:0]   f_keep_q [FD];
  logic [ID_W-1:0] f_id_q [FD];
  logic          f_last_q [FD];
  logic          f_err_q  [FD];
  logic          f_pop;

  assign w      = mid_q ? cw_q : rec_lo_q[rp_q];
  assign can_rd = used_q != '0 && done_q[rp_q] && (3'(f_cnt_q) + {2'b00, rd_v_q} < 3'(FD));
  assign retire = can_rd && w == rec_hi_q[rp_q];
  assign r_last = rec_last_q[rp_q] && retire;
  always_comb begin
    r_keep = ~64'd0;
    if (w == rec_lo_q[rp_q]) r_keep = r_keep & (~64'd0 << rec_loff_q[rp_q]);
    if (w == rec_hi_q[rp_q]) r_keep = r_keep & (~64'd0 >> (6'd63 - rec_hend_q[rp_q]));
    if (rec_null_q[rp_q]) r_keep = '0;
  end

  assign ra = BW'({rp_q, w} >> 1);

  assign f_pop = rd_rsp_valid_o && rd_rsp_ready_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mid_q     <= 1'b0;
      cw_q      <= '0;
      rp_q      <= '0;
      used_q    <= '0;
      err_acc_q <= 1'b0;
      rd_v_q    <= 1'b0;
      rd_bank_q <= 1'b0;
      rm_id_q   <= '0;
      rm_keep_q <= '0;
      rm_last_q <= 1'b0;
      rm_err_q  <= 1'b0;
      f_cnt_q   <= '0;
      f_wp_q    <= '0;
      f_rp_q    <= '0;
    end else begin
      used_q <= used_q + (TW+1)'(issue) - (TW+1)'(retire);
      if (pool_set) rp_q <= '0;   // no tag in use: nothing retires now
      rd_v_q <= can_rd;
      if (can_rd) begin
        rd_bank_q <= w[0];
        rm_id_q   <= rec_id_q[rp_q];
        rm_keep_q <= r_keep;
        rm_last_q <= r_last;
        rm_err_q  <= err_acc_q | err_q[rp_q];
        if (retire) begin
          mid_q <= 1'b0;
          rp_q  <= (rp_q + 1'b1) & tmask_q;
          err_acc_q <= r_last ? 1'b0 : (err_acc_q | err_q[rp_q]);
        end else begin
          mid_q <= 1'b1;
          cw_q  <= w + WW'(1);
        end
      end
      if (rd_v_q) f_wp_q <= f_wp_q + 2'd1;
      if (f_pop) f_rp_q <= f_rp_q + 2'd1;
      f_cnt_q <= f_cnt_q + {2'b00, rd_v_q} - {2'b00, f_pop};
    end
  end

  always_ff @(posedge clk_i) begin
    if (rd_v_q) begin
      f_data_q[f_wp_q] <= rd_bank_q ? rdata1_q : rdata0_q;
      f_keep_q[f_wp_q] <= rm_keep_q;
      f_id_q[f_wp_q]   <= rm_id_q;
      f_last_q[f_wp_q] <= rm_last_q;
      f_err_q[f_wp_q]  <= rm_err_q;
    end
  end

  assign rd_rsp_valid_o = f_cnt_q != '0;
  assign rd_rsp_data_o  = f_data_q[f_rp_q];
  assign rd_rsp_keep_o  = f_keep_q[f_rp_q];
  assign rd_rsp_id_o    = f_id_q[f_rp_q];
  assign rd_rsp_last_o  = f_last_q[f_rp_q];
  assign rd_rsp_err_o   = f_err_q[f_rp_q];
  assign tags_used_o    = used_q;

  logic unused_rd;
  assign unused_rd = ^{s1_dd[511:0], s1_vv[63:0], s1_q, dw_sum[1:0], pc_desc_i[95:72], pc_desc_i[63:47],
                       pc_desc_i[31:29]};

endmodule : kite_pcie_rd
