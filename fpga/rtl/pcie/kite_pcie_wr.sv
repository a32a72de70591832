// DMA write engine on the UltraScale+ PCIe requester request interface
// (PG213, 512-bit, DWORD-aligned mode, RQ straddle).
//
// A write request (id, 64-bit address, length) is followed by its data as
// address-aligned words (byte lane i holds an address = i mod 64, the first
// word at the request address rounded down to 64 bytes, exactly
// ceil((addr mod 64 + len) / 64) words, no last flag; words may be offered
// before their request is taken). The planner splits it into memory write
// TLPs at addresses aligned to the negotiated payload size (at most MPS; it
// divides 4 KiB, so no TLP crosses a 4 KiB boundary), one TLP per cycle into
// a 4-entry queue. The emitter sends them: a TLP is a 4-DW descriptor
// followed by the payload, the data shifted into place by a two-word window
// (the held word and the incoming one), one beat per cycle. A TLP starts
// only once all of its data words are buffered, so RQ tvalid never drops
// inside it.
//
// Straddle: a TLP starts at DW 0 of a beat, or at DW 8 of the beat in which
// the one before it ends when that one ends by DW 7 (PG213 allows a second
// request there). An RX frame of 60 bytes (19 DWs with its descriptor) and
// its 32-byte CQE write then take 5 beats per two frames instead of 6, a run
// of 256-byte TLPs 4.5 beats each instead of 5. The second TLP takes the
// upper half only when strad_en_i is set (kite_pcie clears it while a read
// request waits, which rides in that half instead), when its first 16
// payload bytes lie in its first data word (address mod 64 below 52: the
// window holds the previous TLP's last word then) and when it has more than
// 4 payload DWs, so it does not end in that beat (one wr_done_o per cycle).
// A beat offered and not taken keeps its straddle decision (AXI-Stream).
//
// wr_done_o pulses when the last beat of the request's last TLP is handed
// to the core (posted: no completion exists); a later read of the same
// address, issued after wr_done_o, sees the data (PCIe keeps reads behind
// earlier posted writes). A request of length 0 consumes no data and
// completes with wr_done_err_o (cnt_zero_len_o) once every earlier request
// has completed, so completions stay in request order.
module kite_pcie_wr #(
  parameter int unsigned MPS   = 256,  // max payload size, bytes (128..4096, power of 2)
  parameter int unsigned ID_W  = 8,
  parameter int unsigned LEN_W = 16
) (
  input  logic             clk_i,
  input  logic             rst_ni,

  input  logic             wr_req_valid_i,
  output logic             wr_req_ready_o,
  input  logic [ID_W-1:0]  wr_req_id_i,
  input  logic [7:0]       wr_req_fn_i,    // requesting function (descriptor [87:80])
  input  logic [63:0]      wr_req_addr_i,
  input  logic [LEN_W-1:0] wr_req_len_i,
  // Device Control Max_Payload_Size from the core (cfg_max_payload: 128 <<
  // code bytes), used up to MPS; change it only while idle.
  input  logic [1:0]       cfg_max_payload_i,

  input  logic             wr_data_valid_i,
  output logic             wr_data_ready_o,
  input  logic [511:0]     wr_data_i,

  output logic             wr_done_o,
  output logic [ID_W-1:0]  wr_done_id_o,
  output logic             wr_done_err_o,

  // RQ beats. A beat holds the end of one TLP and the start of the next
  // (at DW 8) only with strad_en_i.
  input  logic             strad_en_i,
  output logic             rq_valid_o,
  input  logic             rq_ready_i,
  output logic [511:0]     rq_data_o,
  output logic [15:0]      rq_keep_o,
  output logic             rq_sop_o,       // a TLP starts in the beat (is_sop[0])
  output logic             rq_sop_hi_o,    // ... at DW 8, after one that ends here (is_sop0_ptr 2)
  output logic             rq_sop2_o,      // a second TLP starts, at DW 8 (is_sop[1])
  output logic             rq_eop_o,       // a TLP ends in the beat (is_eop[0])
  output logic [3:0]       rq_eop_ptr_o,
  output logic             rq_last_o,      // no TLP goes on into the next beat
  output logic [7:0]       rq_first_be_o,  // [3:0] first TLP starting in the beat, [7:4] second
  output logic [7:0]       rq_last_be_o,

  output logic [31:0]      cnt_zero_len_o
);

  localparam int unsigned PW = $clog2(MPS);

  // ----------------------------------------------------------------- planner
  logic             p_busy_q;
  logic [63:0]      p_addr_q;
  logic [LEN_W-1:0] p_rem_q;
  logic [ID_W-1:0]  p_id_q;
  logic [7:0]       p_fn_q;

  // The TLP to plan: the rest of the request being split, or a new one's
  // first (taken only while the planner is idle, planned in the same cycle).
  logic [63:0]      s_addr;
  logic [LEN_W-1:0] s_rem;
  logic [ID_W-1:0]  s_id;
  logic [7:0]       s_fn;
  assign s_addr = p_busy_q ? p_addr_q : wr_req_addr_i;
  assign s_rem  = p_busy_q ? p_rem_q  : wr_req_len_i;
  assign s_id   = p_busy_q ? p_id_q   : wr_req_id_i;
  assign s_fn   = p_busy_q ? p_fn_q   : wr_req_fn_i;

  logic [PW:0]   chunk;
  logic [10:0]   s_dw;
  logic [6:0]    s_nw;
  logic          s_last;
  logic [3:0]    s_fbe, s_lbe;

  logic [PW:0]  mps_eff;
  logic [15:0]  mps_cfg;
  assign mps_cfg = 16'd128 << cfg_max_payload_i;
  assign mps_eff = mps_cfg > 16'(MPS) ? (PW+1)'(MPS) : mps_cfg[PW:0];

  // The split is computed twice, for a new request (from the ports) and for
  // the rest of one being split (from p_rem_q), and chosen by p_busy_q at
  // the end: through s_addr, p_busy_q led the whole room / chunk / DW count
  // / byte enable chain. The rest always starts on an MPS boundary (the
  // chunk before it filled its room; cfg_max_payload_i does not change
  // while busy), so its room is mps_eff and its low address bits are 0.
  // Index 0: new request, 1: the rest. The same sums also give the
  // emitter's per-TLP figures (tq_neg .. tq_sok below).
  // (Flat vectors, [i * width +: width]: yosys 0.23 reads no packed arrays
  // of more than one dimension.)
  localparam int unsigned CW = PW + 1, SW = PW + 2;
  logic [11:0]        v_a;
  logic [2*LEN_W-1:0] v_rem;
  logic [2*CW-1:0]    v_room, v_chunk;
  logic [1:0]         v_last, v_neg_lo, v_neg_hi, v_sok, v_nl_lo, v_nl_hi;
  logic [2*SW-1:0]    v_dw_sum, v_nw_sum, v_e_sum, v_eh_sum, v_nx_sum, v_nxh_sum;
  logic [21:0]        v_dw;
  logic [13:0]        v_nw;
  logic [11:0]        v_end_lo;
  logic [15:0]        v_be;
  assign v_a[5:0]     = wr_req_addr_i[5:0];
  assign v_a[11:6]    = 6'd0;
  assign v_rem        = {p_rem_q, wr_req_len_i};
  assign v_room[CW-1:0]    = mps_eff - {1'b0, wr_req_addr_i[PW-1:0] & (mps_eff[PW-1:0] - PW'(1))};
  assign v_room[2*CW-1:CW] = mps_eff;
  for (genvar i = 0; i < 2; i++) begin : g_plan
    logic [5:0]       a;
    logic [LEN_W-1:0] rem;
    logic [PW:0]      room, ch;
    assign a    = v_a[6*i +: 6];
    assign rem  = v_rem[LEN_W*i +: LEN_W];
    assign room = v_room[CW*i +: CW];
    assign ch   = (rem < LEN_W'(room)) ? rem[PW:0] : room;
    assign v_chunk[CW*i +: CW]  = ch;
    assign v_last[i]            = rem <= LEN_W'(ch);
    assign v_dw_sum[SW*i +: SW] = {{PW{1'b0}}, a[1:0]} + {1'b0, ch} + SW'(3);
    assign v_dw[11*i +: 11]     = 11'(v_dw_sum[SW*i+2 +: PW]);
    assign v_nw_sum[SW*i +: SW] = SW'(a) + {1'b0, ch} + SW'(63);
    assign v_nw[7*i +: 7]       = 7'(v_nw_sum[SW*i+6 +: SW-6]);
    assign v_end_lo[6*i +: 6]   = a + ch[5:0] - 6'd1;
    assign v_be[8*i +: 8]       = kite_rtl_pkg::pcie_be(a[1:0], v_end_lo[6*i +: 2],
                                                        v_dw[11*i +: 11] == 11'd1);
    // a + chunk + 15 (+ 47) is 4 (dw + 3) (4 (dw + 11)) plus under 4: span - 1
    // (8 more after a shared start) and nb - 1 (its 16ths) for the emitter,
    // without an adder behind the queue's read.
    assign v_e_sum[SW*i +: SW]  = {{PW{1'b0}}, a[1:0]} + {1'b0, ch} + SW'(15);
    assign v_eh_sum[SW*i +: SW] = {{PW{1'b0}}, a[1:0]} + {1'b0, ch} + SW'(47);
    // nw - neg (64 times it, plus under 64, as the sum): need_in is then one
    // compare with beat_q.
    assign v_neg_lo[i] = a >= 6'd20;
    assign v_neg_hi[i] = a >= 6'd52;
    assign v_nx_sum[SW*i +: SW]  = SW'(a) + {1'b0, ch} + (v_neg_lo[i] ? {SW{1'b1}} : SW'(63));
    assign v_nxh_sum[SW*i +: SW] = SW'(a) + {1'b0, ch} + (v_neg_hi[i] ? {SW{1'b1}} : SW'(63));
    // need_in on the last beat (nb - 1 < nw - neg), for s_ok.
    assign v_nl_lo[i] = v_e_sum[SW*i+6 +: SW-6] < v_nx_sum[SW*i+6 +: SW-6];
    assign v_nl_hi[i] = v_eh_sum[SW*i+6 +: SW-6] < v_nxh_sum[SW*i+6 +: SW-6];
    // It may start in the upper half of a beat (s_ok).
    assign v_sok[i] = a < 6'd52 && v_dw[11*i +: 11] > 11'd4;
  end

  assign chunk  = v_chunk[CW*p_busy_q +: CW];
  assign s_last = v_last[p_busy_q];
  assign s_dw   = v_dw[11*p_busy_q +: 11];
  assign s_nw   = v_nw[7*p_busy_q +: 7];
  assign {s_lbe, s_fbe} = v_be[8*p_busy_q +: 8];

  // TLP queue.
  localparam int unsigned TQD = 4;
  logic [63:0]     tq_addr [TQD];
  logic [10:0]     tq_dw   [TQD];
  logic [6:0]      tq_nw   [TQD];
  logic [3:0]      tq_fbe  [TQD];
  logic [3:0]      tq_lbe  [TQD];
  logic [7:0]      tq_fn   [TQD];
  logic [ID_W-1:0] tq_id   [TQD];
  logic            tq_last [TQD];
  // Per-TLP figures for the emitter, the low bit / half for a start at DW 0
  // of a beat, the high one for a start at DW 8: the head TLP's arithmetic
  // (span, nb, need_in) behind the queue's read led the straddle decision.
  logic [1:0]      tq_neg  [TQD];   // first beat needs two words
  logic [13:0]     tq_nwx  [TQD];   // nw - neg
  logic [13:0]     tq_nbm  [TQD];   // nb - 1
  logic [3:0]      tq_eop  [TQD];   // end DW in the last beat from DW 0
  logic            tq_sok  [TQD];   // may start at DW 8 (s_ok)
  logic [1:0]      tq_nl   [TQD];   // need_in on the last beat
  logic [1:0]      t_wp_q, t_rp_q, t_rp1;
  logic [2:0]      t_cnt_q;
  logic            t_push, t_pop, take, take_zero;

  // A zero-length request waits until everything before it has completed
  // (the last TLP's wr_done_o is the cycle after the queue empties).
  assign wr_req_ready_o = !p_busy_q && t_cnt_q != 3'(TQD) && (wr_req_len_i != '0 || t_cnt_q == '0);
  assign take           = wr_req_valid_i && wr_req_ready_o;
  assign take_zero      = take && wr_req_len_i == '0;
  assign t_push         = p_busy_q ? t_cnt_q != 3'(TQD) : (take && !take_zero);
  assign t_rp1          = t_rp_q + 2'd1;

  always_ff @(posedge clk_i) begin
    if (t_push) begin
      tq_addr[t_wp_q] <= s_addr;
      tq_dw[t_wp_q]   <= s_dw;
      tq_nw[t_wp_q]   <= s_nw;
      tq_fbe[t_wp_q]  <= s_fbe;
      tq_lbe[t_wp_q]  <= s_lbe;
      tq_fn[t_wp_q]   <= s_fn;
      tq_id[t_wp_q]   <= s_id;
      tq_last[t_wp_q] <= s_last;
      tq_neg[t_wp_q]  <= {v_neg_hi[p_busy_q], v_neg_lo[p_busy_q]};
      tq_nwx[t_wp_q]  <= {7'(v_nxh_sum[SW*p_busy_q+6 +: SW-6]),
                          7'(v_nx_sum[SW*p_busy_q+6 +: SW-6])};
      tq_nbm[t_wp_q]  <= {7'(v_eh_sum[SW*p_busy_q+6 +: SW-6]),
                          7'(v_e_sum[SW*p_busy_q+6 +: SW-6])};
      tq_eop[t_wp_q]  <= v_e_sum[SW*p_busy_q+2 +: 4];
      tq_sok[t_wp_q]  <= v_sok[p_busy_q];
      tq_nl[t_wp_q]   <= {v_nl_hi[p_busy_q], v_nl_lo[p_busy_q]};
    end
  end

  // ---------------------------------------------------------------- data FIFO
  // PG213 wants s_axis_rq_tvalid held through a TLP, so a TLP starts only
  // when all of its words are here; two TLPs' worth keeps the stream going
  // while the next one fills (and lets the next one start in a shared beat).
  localparam int unsigned FD = 1 << $clog2(2 * (MPS / 64 + 1));
  localparam int unsigned FW = $clog2(FD);
  logic [511:0]  fifo_q [FD];
  logic [FW-1:0] f_wp_q, f_rp_q;
  logic [FW:0]   f_cnt_q;
  logic [1:0]    f_npop;
  logic          f_push;
  logic [511:0]  f_head, f_2nd;

  assign f_head          = fifo_q[f_rp_q];
  assign f_2nd           = fifo_q[f_rp_q + FW'(1)];
  assign wr_data_ready_o = f_cnt_q != (FW+1)'(FD);
  assign f_push          = wr_data_valid_i && wr_data_ready_o;

  always_ff @(posedge clk_i) begin
    if (f_push) fifo_q[f_wp_q] <= wr_data_i;
  end

  // ----------------------------------------------------------------- emitter
  // The current TLP is the queue's head, the next one behind it.
  logic [63:0]  c_addr, n_addr;
  logic [10:0]  c_dw, n_dw;
  logic [6:0]   c_nw, n_nw;
  assign c_addr = tq_addr[t_rp_q];
  assign c_dw   = tq_dw[t_rp_q];
  assign c_nw   = tq_nw[t_rp_q];
  assign n_addr = tq_addr[t_rp1];
  assign n_dw   = tq_dw[t_rp1];
  assign n_nw   = tq_nw[t_rp1];

  logic         hi_q;       // the current TLP started at DW 8 of a beat already sent
  logic         primed_q;
  logic [6:0]   beat_q;     // its beats sent
  logic [511:0] hold_q;
  logic         stall_q, strad_q;
  logic [31:0]  cnt_zero_q;

  logic          have_cur, have_nxt, go, priming, need_in, last_beat, first_lo, neg, fire;
  logic          s_ok, strad;
  logic [3:0]    eop_ptr;
  logic [5:0]    shp;
  logic [511:0]  in_w, out_w, n_w0;
  logic [1023:0] win;
  logic [127:0]  c_desc, n_desc, n_pay;
  logic [255:0]  lo_half;

  assign have_cur = t_cnt_q != '0;
  assign have_nxt = t_cnt_q >= 3'd2;
  // span = 4 + dw (+ 8 after a shared start): nb - 1 and span - 1 come
  // from the queue (tq_nbm, tq_eop); span - 1 from DW 8 is 8 more, mod 16.
  assign eop_ptr  = {tq_eop[t_rp_q][3] ^ hi_q, tq_eop[t_rp_q][2:0]};
  // Client byte at lane a (mod 64) goes to lane 16 (48 after a shared
  // start) + (a - addr[5:2]*4): when that is negative the first beat needs
  // the first two words (never after a shared start, see s_ok).
  assign neg      = hi_q ? tq_neg[t_rp_q][1] : tq_neg[t_rp_q][0];
  assign shp      = (hi_q ? 6'd48 : 6'd16) - {c_addr[5:2], 2'b00};
  assign go       = beat_q != '0 || primed_q || 7'(f_cnt_q) >= c_nw;
  assign priming  = have_cur && go && neg && !primed_q;
  // beat_q + neg < c_nw, as tq_nwx is c_nw - neg.
  assign need_in  = beat_q < (hi_q ? tq_nwx[t_rp_q][13:7] : tq_nwx[t_rp_q][6:0]);
  assign in_w     = need_in ? f_head : '0;
  assign win      = {in_w, hold_q} << {shp, 3'b000};
  assign out_w    = win[1023:512];
  assign last_beat = beat_q == (hi_q ? tq_nbm[t_rp_q][13:7] : tq_nbm[t_rp_q][6:0]);
  assign first_lo = beat_q == '0 && !hi_q;

  // The next TLP starts at DW 8 of the current one's last beat.
  // f_cnt_q >= need_in + n_nw as two compares, chosen by need_in as it is
  // on the last beat (tq_nl), which s_ok needs anyway: they need not wait
  // for beat_q's compare.
  assign s_ok  = strad_en_i && have_nxt && last_beat && !eop_ptr[3] && tq_sok[t_rp1] &&
                 ((hi_q ? tq_nl[t_rp_q][1] : tq_nl[t_rp_q][0]) ? 7'(f_cnt_q) > n_nw
                                                              : 7'(f_cnt_q) >= n_nw);
  assign strad = stall_q ? strad_q : s_ok;
  // Its first data word follows the current TLP's last; 16 payload bytes
  // from its first DW go in this beat.
  assign n_w0  = need_in ? f_2nd : f_head;
  assign n_pay = 128'(n_w0 >> {n_addr[5:2], 5'b00000});

  // PG213 Requester Request Descriptor (see kite_pcie_rd), type 0001
  // memory write, the requesting function in [87:80]; the tag is unused for
  // posted requests.
  assign c_desc  = {1'b0, 3'b000, 3'b000, 1'b0, 16'h0000, 8'h00,
                    8'h00, tq_fn[t_rp_q], 1'b0, 4'b0001, c_dw, c_addr[63:2], 2'b00};
  assign n_desc  = {1'b0, 3'b000, 3'b000, 1'b0, 16'h0000, 8'h00,
                    8'h00, tq_fn[t_rp1], 1'b0, 4'b0001, n_dw, n_addr[63:2], 2'b00};
  assign lo_half = first_lo ? {out_w[255:128], c_desc} : out_w[255:0];

  assign rq_valid_o    = have_cur && go && !priming;
  assign rq_data_o     = {strad ? {n_pay, n_desc} : out_w[511:256], lo_half};
  assign rq_sop_o      = first_lo || strad;
  assign rq_sop_hi_o   = strad && !first_lo;
  assign rq_sop2_o     = strad && first_lo;
  assign rq_eop_o      = last_beat;
  assign rq_eop_ptr_o  = eop_ptr;
  assign rq_last_o     = last_beat && !strad;
  assign rq_keep_o     = rq_last_o ? (16'hffff >> (4'd15 - eop_ptr)) : 16'hffff;
  assign rq_first_be_o = {strad && first_lo ? tq_fbe[t_rp1] : 4'h0,
                          first_lo ? tq_fbe[t_rp_q] : (strad ? tq_fbe[t_rp1] : 4'h0)};
  assign rq_last_be_o  = {strad && first_lo ? tq_lbe[t_rp1] : 4'h0,
                          first_lo ? tq_lbe[t_rp_q] : (strad ? tq_lbe[t_rp1] : 4'h0)};
  assign fire          = rq_valid_o && rq_ready_i;
  assign t_pop         = fire && last_beat;
  assign f_npop        = priming ? 2'd1 : fire ? 2'(need_in) + 2'(strad) : 2'd0;
  assign cnt_zero_len_o = cnt_zero_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      p_busy_q      <= 1'b0;
      p_addr_q      <= '0;
      p_rem_q       <= '0;
      p_id_q        <= '0;
      p_fn_q        <= '0;
      t_wp_q        <= '0;
      t_rp_q        <= '0;
      t_cnt_q       <= '0;
      f_wp_q        <= '0;
      f_rp_q        <= '0;
      f_cnt_q       <= '0;
      hi_q          <= 1'b0;
      primed_q      <= 1'b0;
      beat_q        <= '0;
      hold_q        <= '0;
      stall_q       <= 1'b0;
      strad_q       <= 1'b0;
      wr_done_o     <= 1'b0;
      wr_done_id_o  <= '0;
      wr_done_err_o <= 1'b0;
      cnt_zero_q    <= '0;
    end else begin
      // Planner.
      if (t_push) begin
        p_busy_q <= !s_last;
        p_addr_q <= s_addr + 64'(chunk);
        p_rem_q  <= s_rem - LEN_W'(chunk);
        p_id_q   <= s_id;
        p_fn_q   <= s_fn;
        t_wp_q   <= t_wp_q + 2'd1;
      end
      t_cnt_q <= t_cnt_q + 3'(t_push) - 3'(t_pop);
      if (t_pop) t_rp_q <= t_rp1;

      f_wp_q  <= f_wp_q + FW'(f_push);
      f_rp_q  <= f_rp_q + FW'(f_npop);
      f_cnt_q <= f_cnt_q + (FW+1)'(f_push) - (FW+1)'(f_npop);

      // Emitter.
      stall_q <= rq_valid_o && !rq_ready_i;
      strad_q <= strad;
      if (priming) begin
        hold_q   <= f_head;
        primed_q <= 1'b1;
      end
      wr_done_o <= 1'b0;
      if (fire) begin
        if (need_in) hold_q <= f_head;
        if (last_beat) begin
          // The next TLP from DW 0 of the next beat, or already begun here.
          beat_q   <= strad ? 7'd1 : 7'd0;
          hi_q     <= strad;
          primed_q <= 1'b0;
          if (strad) hold_q <= n_w0;
          if (tq_last[t_rp_q]) begin
            wr_done_o     <= 1'b1;
            wr_done_id_o  <= tq_id[t_rp_q];
            wr_done_err_o <= 1'b0;
          end
        end else begin
          beat_q <= beat_q + 7'd1;
        end
      end
      if (take_zero) begin
        wr_done_o     <= 1'b1;
        wr_done_id_o  <= wr_req_id_i;
        wr_done_err_o <= 1'b1;
        cnt_zero_q    <= cnt_zero_q + 32'd1;
      end
    end
  end

  logic unused_wr;
  assign unused_wr = ^{v_end_lo[11:8], v_end_lo[5:2], v_dw_sum[SW+1:SW], v_dw_sum[1:0],
                       v_e_sum[SW+1:SW], v_e_sum[1:0], v_eh_sum[SW+5:SW], v_eh_sum[5:0],
                       v_nw_sum[SW+5:SW], v_nw_sum[5:0], v_nx_sum[SW+5:SW], v_nx_sum[5:0],
                       v_nxh_sum[SW+5:SW], v_nxh_sum[5:0],
                       win[511:0], c_addr[1:0], n_addr[1:0]};

endmodule : kite_pcie_wr
