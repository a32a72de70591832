// TSO/USO segmentation over a 512-bit AXI-Stream, byte for byte as the
// model's kite::tx_lso behind kite::tx_lso_desc_ok (fpga/model/txp/
// txoffload.cpp). Frames without wqe_eth LSO pass through unchanged.
//
// Input: the gathered super-frame (no FCS) with the WQE's Ethernet segment
// (kite_pkg::wqe_eth_t), the frame length (sum of the gather entries) and the
// first gather entry's length on every beat, sampled on the first beat.
// Output: segments (or the unchanged frame) with their wqe_eth for kite_txp,
// which inserts the VLAN tag: an LSO segment's eth has L3_CSUM, L4_CSUM, LSO
// and USO cleared (the segmenter has filled every checksum).
//
// How the checksum keeps up with the line: the L4 checksum lies in the
// header, before the payload it covers, so each segment is stored before it
// leaves. Input beats go once into a BUF_BEATS x 512-bit buffer (two banks,
// even and odd beats) while a summing pipeline cuts the stream into segments
// and sums each segment's payload; a per-segment record (patch values,
// buffer address) is queued when its payload sum is known. The readout emits
// the header from a header register with the per-segment fields patched,
// then the payload read from the buffer at any byte offset: both banks are
// read every cycle (beats A and A+1) and shifted, so every output beat takes
// one cycle and segments follow each other without a gap.
//
// Per super-frame: the header (hdr_len <= 256 bytes, up to 4 beats) is
// captured into one of two header slots and parsed in 11 cycles (tags,
// IPv4/IPv6 with extension headers, TCP/UDP, the base sums of the IPv4
// header and of the pseudo header plus the replicated L4 header bytes without
// the per-segment fields); meanwhile the input holds. Bad input is consumed
// and dropped whole, counted in drop_cnt_o: a descriptor that fails
// tx_lso_desc_ok (mss 0, hdr_len over 256, beyond the first gather entry,
// hdr_len + mss over a 9018-byte frame, a super-frame over 64 KiB), a header
// that tx_lso rejects, and a non-LSO frame over 9018 bytes (it could not fit
// the buffer). MAX_TSO_SIZE bounds the segment count (one byte of payload per
// segment at most 65536 segments); the spec has no other segment limit.
//
// s_len_i is the gather's sum of its entries, but the block does not rely on
// the data matching it (the checks above are made on it): data past the
// stated length is never sent. A plain frame that runs past it is dropped
// whole (the beats it stored are freed with the next frame's: the free
// pointer moves to each frame's end); a super-frame is segmented up
// to it, as tx_lso over the stated length, and the rest consumed. Either way
// drop_cnt_o counts one, and the next frame follows intact (the verdict is
// ok unless the first beat already ran past it). Data shorter
// than stated ends where it ends, as the model cuts the frame it is given.
module kite_txp_tso #(
  parameter int unsigned DATA_W    = 512,
  parameter int unsigned BUF_BEATS = 512,    // 32 KiB: a 9 KiB segment and the next one
  parameter int unsigned SEGS      = 32      // segment records between input and output
) (
  input  logic                clk_i,
  input  logic                rst_ni,

  input  logic                s_valid_i,
  output logic                s_ready_o,
  input  logic [DATA_W-1:0]   s_data_i,
  input  logic [DATA_W/8-1:0] s_keep_i,      // contiguous from lane 0, at least one byte
  input  logic                s_last_i,
  input  logic [127:0]        s_eth_i,       // kite_pkg::wqe_eth_t
  input  logic [31:0]         s_len_i,       // frame length (sum of the gather entries)
  input  logic [31:0]         s_first_len_i, // length of the first gather entry

  output logic                m_valid_o,
  input  logic                m_ready_i,
  output logic [DATA_W-1:0]   m_data_o,
  output logic [DATA_W/8-1:0] m_keep_o,
  output logic                m_last_o,
  output logic [127:0]        m_eth_o,

  output logic [31:0]         lso_cnt_o,     // super-frames segmented
  output logic [31:0]         seg_cnt_o,     // segments sent
  output logic [31:0]         drop_cnt_o,    // frames dropped (bad descriptor or headers)
  // One verdict per input frame, in input order, once it is known (a
  // super-frame's after its headers are parsed): ok 0 = dropped whole.
  output logic                v_valid_o,
  output logic                v_ok_o
);

  localparam int unsigned NB = DATA_W / 8;
  localparam int unsigned CW = $clog2(NB) + 1;
  localparam int unsigned PW = 18;                    // byte positions in a super-frame
  localparam int unsigned PT = 16;                    // beat pointers (modular)
  localparam int unsigned BW = $clog2(BUF_BEATS) - 1; // index bits of one bank
  localparam int unsigned SW = $clog2(SEGS);
  localparam int unsigned HB = 4 * DATA_W;            // header slot: 256 bytes
  localparam logic [PW-1:0] MAX_FRAME = PW'(kite_pkg::MAX_MTU + 14 + 4);
  localparam logic [31:0]   MAX_TSO   = 32'(kite_pkg::MAX_TSO_SIZE);
  localparam logic [15:0]   MAX_HDR   = 16'(kite_pkg::MAX_TSO_HDR);

  // ---------------------------------------------------------------- input beat
  logic [DATA_W-1:0] d;
  logic [CW-1:0]     cnt;
  always_comb begin
    cnt = '0;
    for (int i = 0; i < NB; i++) begin
      d[8*i +: 8] = s_keep_i[i] ? s_data_i[8*i +: 8] : 8'd0;
      cnt = cnt + CW'(s_keep_i[i]);
    end
  end

  logic        e_lso, e_uso;
  logic [15:0] e_mss, e_hlen;
  assign e_lso  = s_eth_i[2];
  assign e_uso  = s_eth_i[5];
  assign e_mss  = s_eth_i[31:16];
  assign e_hlen = s_eth_i[79:64];

  // kite::tx_lso_desc_ok
  logic desc_ok, raw_ok;
  // hdr_len <= s_len_i follows from hdr_len <= first_len in the model, where
  // the first entry is part of the frame; here both are only stated.
  assign desc_ok = s_len_i >= 32'd14 && s_len_i <= MAX_TSO && e_mss != '0 && e_hlen <= MAX_HDR &&
                   32'(e_hlen) <= s_first_len_i && 32'(e_hlen) <= s_len_i &&
                   32'(e_hlen) + 32'(e_mss) <= 32'(MAX_FRAME);
  assign raw_ok  = s_len_i <= 32'(MAX_FRAME) && 32'(cnt) <= s_len_i;

  // ---------------------------------------------------------------- state
  typedef enum logic [2:0] {M_IDLE, M_RAW, M_HDR, M_PARSE, M_PAY, M_DROP} mode_e;
  mode_e         mode_q, mode_d;
  logic [PW-1:0] b_q, b_d;                   // position of the beat at the input
  logic [PT-1:0] wr_ptr_q, free_ptr_q;
  logic [PT-1:0] fbase_q, fbase_d;           // buffer beat of frame position 0
  logic [PW-1:0] seg_s_q, seg_s_d;           // position where the open segment starts
  logic [15:0]   seg_i_q, seg_i_d;
  logic          wslot_q, wslot_d;           // header slot the input fills
  logic [1:0]    busy_q, busy_set, busy_clr; // slots whose segments are not all out
  logic          short_q, short_d;           // the frame ended inside the header

  // Super-frame context (input side), latched on the first beat.
  logic [127:0]  c_eth_q;
  logic [8:0]    c_hlen_q;
  logic [15:0]   c_mss_q;
  logic          c_uso_q;
  logic [PW-1:0] c_len_q;                    // stated length, at most MAX_TSO
  logic [PW-1:0] r_len_q;                    // a plain frame's, at most MAX_FRAME

  // Parse results.
  logic [3:0]    pstep_q;
  logic          pr_bad_q, pr_v4_q, pr_tcp_q;
  logic [4:0]    pr_l3_q;
  logic [11:0]   pr_l4_q;
  logic [11:0]   pr_l4d_q;                   // pr_l4_q + 12: the TCP data offset's byte
  logic [3:0]    pr_ihl_q;
  logic [7:0]    pr_nh_q, pr_fl_q;
  logic [15:0]   pr_id_q;
  logic [31:0]   pr_seq_q;
  logic [23:0]   pr_ipsum_q, pr_l4sum_q;
  logic          parse_done, parse_bad;

  // The parse results of the super-frame whose segments are being summed,
  // loaded when its payload starts (after the previous super-frame's
  // records have left the summing pipeline).
  logic          k_v4_q, k_tcp_q;
  logic [4:0]    k_l3_q;
  logic [11:0]   k_l4_q;
  logic [8:0]    k_hlen_q;
  logic [7:0]    k_nh_q, k_fl_q;
  logic [15:0]   k_id_q;
  logic [31:0]   k_seq_q;
  logic [23:0]   k_ipsum_q, k_l4sum_q;

  // Header slots: beat k of slot s.
  logic [DATA_W-1:0] hdr_q [2][4];
  logic [HB-1:0]     hw;                     // the input's slot, flat
  assign hw = {hdr_q[wslot_q][3], hdr_q[wslot_q][2], hdr_q[wslot_q][1], hdr_q[wslot_q][0]};

  // Summing pipeline occupancy and the record queue.
  logic          p1_v_q, p2_v_q, p3_v_q, g_v_q;
  logic [SW:0]   rec_wr_q, rec_rd_q, rec_cnt;
  logic          room, rec_room;
  assign rec_cnt   = rec_wr_q - rec_rd_q;
  assign room      = (wr_ptr_q - free_ptr_q) < PT'(BUF_BEATS);
  assign rec_room  = rec_cnt < (SW+1)'(SEGS - 4);

  // ---------------------------------------------------------------- input control
  logic          take, bwr, hwe, latch, drop_inc, lso_inc;
  logic          late_drop;                  // the data ran past its stated length
  logic          n_push, n_raw, n_fin, n_first, n_last;
  logic [6:0]    n_lo, n_hi;
  logic [PW-1:0] n_chunk;
  logic [PT-1:0] n_fb;
  logic [127:0]  n_eth, r_eth_q;
  logic [PW-1:0] e_end, p_end, seg_end, lo, hi;
  logic          over, p_last, done, fin, exhaust, is_last;

  // A super-frame's payload ends at its last beat or its stated length,
  // whichever comes first.
  always_comb begin
    e_end   = b_q + PW'(cnt);
    over    = e_end >= c_len_q;
    p_end   = over ? c_len_q : e_end;
    p_last  = s_last_i || over;
    seg_end = seg_s_q + PW'(c_mss_q);
    lo      = seg_s_q > b_q ? seg_s_q : b_q;
    done    = seg_end <= p_end;
    fin     = done || p_last;
    hi      = done ? seg_end : p_end;
    exhaust = !done || seg_end == p_end;
    is_last = p_last && hi == p_end;
  end

  always_comb begin
    mode_d   = mode_q;
    b_d      = b_q;
    fbase_d  = fbase_q;
    seg_s_d  = seg_s_q;
    seg_i_d  = seg_i_q;
    wslot_d  = wslot_q;
    short_d  = short_q;
    busy_set = '0;
    take     = 1'b0;
    bwr      = 1'b0;
    hwe      = 1'b0;
    latch    = 1'b0;
    drop_inc = 1'b0;
    lso_inc  = 1'b0;
    late_drop = 1'b0;
    n_push   = 1'b0;
    n_raw    = 1'b0;
    n_fin    = 1'b0;
    n_first  = 1'b0;
    n_last   = 1'b0;
    n_lo     = '0;
    n_hi     = '0;
    n_chunk  = '0;
    n_fb     = fbase_q;
    n_eth    = mode_q == M_IDLE ? s_eth_i : (mode_q == M_RAW ? r_eth_q : c_eth_q);
    unique case (mode_q)
      M_IDLE: begin
        if (s_valid_i) begin
          if (!e_lso && !raw_ok || e_lso && !desc_ok) begin
            take     = 1'b1;
            drop_inc = 1'b1;
            if (!s_last_i) mode_d = M_DROP;
          end else if (!e_lso) begin
            if (room && rec_room) begin
              take    = 1'b1;
              bwr     = 1'b1;
              fbase_d = wr_ptr_q;
              if (s_last_i) begin
                n_push  = 1'b1;
                n_raw   = 1'b1;
                n_fin   = 1'b1;
                n_last  = 1'b1;
                n_chunk = PW'(cnt);
                n_fb    = wr_ptr_q;
              end else begin
                b_d    = PW'(NB);
                mode_d = M_RAW;
              end
            end
          end else if (!busy_q[wslot_q]) begin
            latch = 1'b1;
            hwe   = 1'b1;
            if (PW'(cnt) >= PW'(e_hlen) || s_last_i) begin
              short_d = PW'(cnt) < PW'(e_hlen);
              mode_d  = M_PARSE;
            end else begin
              take   = 1'b1;
              b_d    = PW'(NB);
              mode_d = M_HDR;
            end
          end
        end
      end
      M_RAW: begin
        if (s_valid_i && e_end > r_len_q) begin
          // Past its stated length: dropped after its verdict.
          take      = 1'b1;
          late_drop = 1'b1;
          b_d       = '0;
          mode_d    = s_last_i ? M_IDLE : M_DROP;
        end else if (s_valid_i && room && rec_room) begin
          take = 1'b1;
          bwr  = 1'b1;
          b_d  = b_q + PW'(NB);
          if (s_last_i) begin
            n_push  = 1'b1;
            n_raw   = 1'b1;
            n_fin   = 1'b1;
            n_last  = 1'b1;
            n_chunk = e_end;
            b_d     = '0;
            mode_d  = M_IDLE;
          end
        end
      end
      M_DROP: begin
        if (s_valid_i) begin
          take = 1'b1;
          if (s_last_i) begin
            b_d    = '0;
            mode_d = M_IDLE;
          end
        end
      end
      M_HDR: begin
        if (s_valid_i) begin
          hwe = 1'b1;
          // The beat that completes the header is held for the payload.
          if (e_end >= PW'(c_hlen_q) || s_last_i) begin
            short_d = e_end < PW'(c_hlen_q);
            mode_d  = M_PARSE;
          end else begin
            take = 1'b1;
            b_d  = b_q + PW'(NB);
          end
        end
      end
      M_PARSE: begin
        if (parse_done) begin
          if (parse_bad) begin
            drop_inc = 1'b1;
            mode_d   = M_DROP;
          end else begin
            lso_inc              = 1'b1;
            busy_set[wslot_q]    = 1'b1;
            // Header-only beats are never read as payload: not stored.
            fbase_d              = wr_ptr_q - PT'(b_q >> 6);
            seg_s_d              = PW'(c_hlen_q);
            seg_i_d              = '0;
            mode_d               = M_PAY;
          end
        end
      end
      M_PAY: begin
        if (s_valid_i && room && rec_room) begin
          // The beat is written every cycle it is held: a segment that ends
          // inside it may be read out before the beat is taken.
          bwr     = 1'b1;
          n_push  = 1'b1;
          n_lo    = 7'(lo - b_q);
          n_hi    = 7'(hi - b_q);
          n_fin   = fin;
          n_first = seg_s_q >= b_q;
          n_last  = is_last;
          n_chunk = hi - seg_s_q;
          if (fin) begin
            seg_s_d = seg_end;
            seg_i_d = seg_i_q + 16'd1;
          end
          if (exhaust) begin
            take = 1'b1;
            b_d  = b_q + PW'(NB);
          end
          if (fin && is_last) begin
            b_d       = '0;
            wslot_d   = !wslot_q;
            mode_d    = s_last_i ? M_IDLE : M_DROP;
            late_drop = e_end > c_len_q || !s_last_i;
          end
        end
      end
      default: mode_d = M_IDLE;
    endcase
  end

  assign s_ready_o = take;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mode_q     <= M_IDLE;
      b_q        <= '0;
      fbase_q    <= '0;
      seg_s_q    <= '0;
      seg_i_q    <= '0;
      wslot_q    <= 1'b0;
      short_q    <= 1'b0;
      busy_q     <= '0;
      wr_ptr_q   <= '0;
      lso_cnt_o  <= '0;
      drop_cnt_o <= '0;
      v_valid_o  <= 1'b0;
      v_ok_o     <= 1'b0;
    end else begin
      mode_q     <= mode_d;
      b_q        <= b_d;
      fbase_q    <= fbase_d;
      seg_s_q    <= seg_s_d;
      seg_i_q    <= seg_i_d;
      wslot_q    <= wslot_d;
      short_q    <= short_d;
      busy_q     <= (busy_q | busy_set) & ~busy_clr;
      if (take && bwr) wr_ptr_q <= wr_ptr_q + 1'b1;
      // Late conditions: enables, not carry-ins.
      if (lso_inc) lso_cnt_o <= lso_cnt_o + 32'd1;
      if (drop_inc || late_drop) drop_cnt_o <= drop_cnt_o + 32'd1;
      v_valid_o  <= drop_inc || lso_inc || (mode_q == M_IDLE && bwr);
      v_ok_o     <= !drop_inc;
    end
  end

  always_ff @(posedge clk_i) begin
    if (latch) begin
      c_eth_q  <= s_eth_i;
      c_hlen_q <= 9'(e_hlen);
      c_mss_q  <= e_mss;
      c_uso_q  <= e_uso;
      c_len_q  <= PW'(s_len_i);
    end
    if (mode_q == M_IDLE && take) begin
      r_eth_q <= s_eth_i;
      r_len_q <= PW'(s_len_i);
    end
    if (hwe) hdr_q[wslot_q][b_q[7:6]] <= d;
  end

  // Buffer: even beats in bank 0, odd beats in bank 1.
  logic [DATA_W-1:0] bank0 [BUF_BEATS/2];
  logic [DATA_W-1:0] bank1 [BUF_BEATS/2];
  always_ff @(posedge clk_i) begin
    if (bwr && !wr_ptr_q[0]) bank0[wr_ptr_q[BW:1]] <= d;
    if (bwr && wr_ptr_q[0])  bank1[wr_ptr_q[BW:1]] <= d;
  end

  // ---------------------------------------------------------------- header parse
  // kite::tx_lso's find_l3 and header checks on the slot. Every byte an
  // accepted header needs lies before hdr_len <= 256; a parse that would read
  // further fails tx_lso's hdr_len checks, so it is dropped here too.
  function automatic logic [7:0] hb(input logic [HB-1:0] h, input logic [11:0] i);
    hb = i < 12'd256 ? h[8*i[7:0] +: 8] : 8'd0;
  endfunction

  // The byte at l3 + k (k >= 0): l3 is one of three places, so the byte is
  // read at each and selected by the tags, with no add before the byte mux.
  function automatic logic [7:0] hl3(input logic [HB-1:0] h, input logic a1, input logic a2,
                                     input logic [11:0] k);
    hl3 = a2 ? hb(h, 12'd22 + k) : (a1 ? hb(h, 12'd18 + k) : hb(h, 12'd14 + k));
  endfunction

  logic        t1, t2, x_v4, x_v6, x_tcp, x_udp;
  logic [4:0]  x_l3;
  logic [15:0] x_et;
  logic [7:0]  x_vb, x_nh0, x_nhw;
  logic        x_ext0, x_extw, x_bad5;
  logic [1:0]  x_hlast;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [7:0]  x_doff;
  logic [12:0] x_room;                        // hdr_len - l4: the bytes from the L4 header on
  /* verilator lint_on UNUSEDSIGNAL */
  logic [11:0] x_step;
  logic [15:0] x_dofok;                       // a TCP data offset (in words) that fits
  logic [8*18-1:0] x_ipg, x_l4g, ps_ipg_q, ps_l4g_q;  // 8 groups of 4 words
  logic            ps_v_q;
  logic [23:0]     ps_ips, ps_l4s;
  logic [11:0] lp, r3, r4;
  logic [NB-1:0] x_ipm, x_l4m, ipm_q, l4m_q;  // lanes in the sums, a step ahead
  logic [15:0]   ipw, l4w;
  logic [4*18-1:0] ipt, l4t;

  always_comb begin
    t1    = {hb(hw, 12'd12), hb(hw, 12'd13)} == 16'h8100 || {hb(hw, 12'd12), hb(hw, 12'd13)} == 16'h88a8;
    t2    = t1 && ({hb(hw, 12'd16), hb(hw, 12'd17)} == 16'h8100 || {hb(hw, 12'd16), hb(hw, 12'd17)} == 16'h88a8);
    x_l3  = t2 ? 5'd22 : (t1 ? 5'd18 : 5'd14);
    x_et  = t2 ? {hb(hw, 12'd20), hb(hw, 12'd21)} :
                 (t1 ? {hb(hw, 12'd16), hb(hw, 12'd17)} : {hb(hw, 12'd12), hb(hw, 12'd13)});
    x_vb  = hl3(hw, t1, t2, 12'd0);
    x_v4  = x_et == 16'h0800 && x_vb[7:4] == 4'd4 && x_vb[3:0] >= 4'd5;
    x_v6  = x_et == 16'h86dd && x_vb[7:4] == 4'd6;
    x_nh0 = hl3(hw, t1, t2, 12'd6);
    x_nhw = hb(hw, pr_l4_q);
    x_ext0 = x_v6 && (x_nh0 == 8'd0 || x_nh0 == 8'd43 || x_nh0 == 8'd60);
    x_extw = x_nhw == 8'd0 || x_nhw == 8'd43 || x_nhw == 8'd60;
    x_hlast = 2'((c_hlen_q - 9'd1) >> 6);
    x_step = 12'((13'(hb(hw, pr_l4_q + 12'd1)) + 13'd1) << 3);
    x_tcp = pr_nh_q == 8'd6 && !c_uso_q;
    x_udp = pr_nh_q == 8'd17 && c_uso_q;
    x_doff = hb(hw, pr_l4d_q);
    // The L4 header length checks against bounds known before the byte is
    // read. l4 stays below 2300 (an extension header is only walked from
    // l4 + 8 <= hdr_len <= 256), so l4 + 60 never wraps the 12 bits.
    x_room = 13'(c_hlen_q) - 13'(pr_l4_q);
    // room >= 4k as room / 4 >= k: a compare with constants.
    for (int k = 0; k < 16; k++)
      x_dofok[k] = k >= 5 && !x_room[12] && (x_room[11:6] != '0 || x_room[5:2] >= 4'(k));

    // Base sums over one header beat (pstep 6..9): the IPv4 header without
    // total length, ID and checksum; the pseudo-header addresses and the
    // L4 header bytes up to hdr_len without the per-segment fields. l3 and
    // l4 are even, so a byte's absolute parity is its parity in the sum.
    // The lane masks are made a step ahead (for the beat of pstep + 1) and
    // registered: steps 6..9 follow each other, and what they depend on is
    // final from step 5 on (pr_tcp_q is x_tcp then), so the sums start at
    // the masks. ps_*g_q are only read behind steps 6..9 (ps_v_q).
    for (int l = 0; l < NB; l++) begin
      lp       = {4'b0000, 2'(pstep_q - 4'd5), 6'(l)};
      r3       = lp - 12'(pr_l3_q);
      r4       = lp - pr_l4_q;
      x_ipm[l] = pr_v4_q && lp >= 12'(pr_l3_q) && r3 < 12'({pr_ihl_q, 2'b00}) &&
                 !(r3 >= 12'd2 && r3 <= 12'd5) && r3 != 12'd10 && r3 != 12'd11;
      x_l4m[l] = lp >= 12'(pr_l3_q) && (pr_v4_q ? r3 >= 12'd12 && r3 < 12'd20 : r3 >= 12'd8 && r3 < 12'd40);
      x_l4m[l] = x_l4m[l] || lp >= pr_l4_q && lp < 12'(c_hlen_q) && !(r4 >= 12'd4 && r4 <= 12'd7) &&
                 !(x_tcp && (r4 == 12'd13 || r4 == 12'd16 || r4 == 12'd17));
    end
    // Each group's four words (a lane pair is one word: even lanes are high
    // bytes) as a tree of adds, not a chain of eight.
    for (int g = 0; g < 8; g++) begin
      for (int w = 0; w < 4; w++) begin
        lp  = {4'b0000, 2'(pstep_q - 4'd6), 6'(8 * g + 2 * w)};
        ipw = {ipm_q[8*g+2*w] ? hb(hw, lp) : 8'd0, ipm_q[8*g+2*w+1] ? hb(hw, lp + 12'd1) : 8'd0};
        l4w = {l4m_q[8*g+2*w] ? hb(hw, lp) : 8'd0, l4m_q[8*g+2*w+1] ? hb(hw, lp + 12'd1) : 8'd0};
        ipt[18*w +: 18] = 18'(ipw);
        l4t[18*w +: 18] = 18'(l4w);
      end
      x_ipg[18*g +: 18] = (ipt[0 +: 18] + ipt[18 +: 18]) + (ipt[36 +: 18] + ipt[54 +: 18]);
      x_l4g[18*g +: 18] = (l4t[0 +: 18] + l4t[18 +: 18]) + (l4t[36 +: 18] + l4t[54 +: 18]);
    end
    // The previous step's groups, added a cycle later (a tree of adds).
    ps_ips = '0;
    ps_l4s = '0;
    if (ps_v_q) begin
      ps_ips = ((24'(ps_ipg_q[0 +: 18]) + 24'(ps_ipg_q[18 +: 18])) +
                (24'(ps_ipg_q[36 +: 18]) + 24'(ps_ipg_q[54 +: 18]))) +
               ((24'(ps_ipg_q[72 +: 18]) + 24'(ps_ipg_q[90 +: 18])) +
                (24'(ps_ipg_q[108 +: 18]) + 24'(ps_ipg_q[126 +: 18])));
      ps_l4s = ((24'(ps_l4g_q[0 +: 18]) + 24'(ps_l4g_q[18 +: 18])) +
                (24'(ps_l4g_q[36 +: 18]) + 24'(ps_l4g_q[54 +: 18]))) +
               ((24'(ps_l4g_q[72 +: 18]) + 24'(ps_l4g_q[90 +: 18])) +
                (24'(ps_l4g_q[108 +: 18]) + 24'(ps_l4g_q[126 +: 18])));
    end
  end

  // Steps: 0 L2/L3; 1..4 one IPv6 extension header each (only as many as
  // there are); 5 the L4 checks; 6..9 the base sums, one header beat each
  // (group sums; they are added one cycle later); 10 done.
  assign x_bad5     = pr_bad_q || !(x_tcp || x_udp) ||
                      (x_tcp ? !x_dofok[x_doff[7:4]] : x_room[12] || x_room[11:3] == '0);
  // Done waits for the previous super-frame's records to leave P1..P4 (they
  // read k_*); by cycle count they always have.
  assign parse_done = mode_q == M_PARSE && (pstep_q == 4'd5 && x_bad5 ||
                      pstep_q == 4'd10 && !(p1_v_q || p2_v_q || p3_v_q || g_v_q));
  assign parse_bad  = pstep_q == 4'd5;

  always_ff @(posedge clk_i) begin
    ps_v_q   <= mode_q == M_PARSE && pstep_q >= 4'd6 && pstep_q <= 4'd9;
    ps_ipg_q <= x_ipg;
    ps_l4g_q <= x_l4g;
    ipm_q    <= x_ipm;
    l4m_q    <= x_l4m;
    if (mode_q != M_PARSE) begin
      pstep_q <= '0;
    end else begin
      pstep_q <= pstep_q + 4'd1;
      if (pstep_q == 4'd0) begin
        if (!x_ext0) pstep_q <= 4'd5;
        pr_bad_q   <= short_q || !(x_v4 || x_v6);
        pr_v4_q    <= x_v4;
        pr_l3_q    <= x_l3;
        pr_ihl_q   <= x_vb[3:0];
        pr_nh_q    <= x_v4 ? hl3(hw, t1, t2, 12'd9) : x_nh0;
        pr_l4_q    <= x_v4 ? 12'(x_l3) + 12'({x_vb[3:0], 2'b00}) : 12'(x_l3) + 12'd40;
        pr_l4d_q   <= x_v4 ? 12'(x_l3) + 12'({x_vb[3:0], 2'b00}) + 12'd12 : 12'(x_l3) + 12'd52;
        pr_id_q    <= {hl3(hw, t1, t2, 12'd4), hl3(hw, t1, t2, 12'd5)};
        pr_ipsum_q <= '0;
        pr_l4sum_q <= '0;
      end else if (pstep_q <= 4'd4) begin
        // IPv6 extension headers (hop-by-hop, routing, destination options),
        // at most four as the model walks.
        if (pr_l4_q + 12'd8 > 12'(c_hlen_q)) begin
          pr_bad_q <= 1'b1;
          pstep_q  <= 4'd5;
        end else begin
          pr_nh_q <= x_nhw;
          pr_l4_q  <= pr_l4_q + x_step;
          pr_l4d_q <= pr_l4d_q + x_step;
          if (!x_extw) pstep_q <= 4'd5;
        end
      end else if (pstep_q == 4'd5) begin
        pr_tcp_q <= x_tcp;
        pr_seq_q <= {hb(hw, pr_l4_q + 12'd4), hb(hw, pr_l4_q + 12'd5), hb(hw, pr_l4_q + 12'd6),
                     hb(hw, pr_l4_q + 12'd7)};
        pr_fl_q  <= hb(hw, pr_l4_q + 12'd13);
      end else if (pstep_q <= 4'd9) begin
        if (2'(pstep_q - 4'd6) == x_hlast) pstep_q <= 4'd10;
      end
      if (pstep_q == 4'd10) pstep_q <= 4'd10;
      if (pstep_q >= 4'd7) begin
        pr_ipsum_q <= pr_ipsum_q + ps_ips;
        pr_l4sum_q <= pr_l4sum_q + ps_l4s;
      end
    end
    if (parse_done && !parse_bad) begin
      k_v4_q    <= pr_v4_q;
      k_tcp_q   <= pr_tcp_q;
      k_l3_q    <= pr_l3_q;
      k_l4_q    <= pr_l4_q;
      k_hlen_q  <= c_hlen_q;
      k_nh_q    <= pr_nh_q;
      k_fl_q    <= pr_fl_q;
      k_id_q    <= pr_id_q;
      k_seq_q   <= pr_seq_q;
      k_ipsum_q <= pr_ipsum_q + ps_ips;
      k_l4sum_q <= pr_l4sum_q + ps_l4s;
    end
  end

  // ---------------------------------------------------------------- summing pipeline
  // P1: the beat and the byte range [lo, hi) of the open segment in it.
  logic [DATA_W-1:0] p1_d_q;
  logic [6:0]        p1_lo_q, p1_hi_q;
  logic              p1_fin_q, p1_first_q, p1_last_q, p1_raw_q;
  logic [PW-1:0]     p1_s_q, p1_chunk_q;
  logic [15:0]       p1_i_q;
  logic [PT-1:0]     p1_fb_q;
  logic              p1_slot_q, p2_slot_q, p3_slot_q;
  logic [127:0]      p1_eth_q, p2_eth_q, p3_eth_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      p1_v_q <= 1'b0;
      p2_v_q <= 1'b0;
      p3_v_q <= 1'b0;
    end else begin
      p1_v_q <= n_push;
      p2_v_q <= p1_v_q;
      p3_v_q <= p2_v_q && p2_fin_q;
    end
  end

  always_ff @(posedge clk_i) begin
    p1_d_q     <= d;
    p1_lo_q    <= n_lo;
    p1_hi_q    <= n_hi;
    p1_fin_q   <= n_fin;
    p1_first_q <= n_first;
    p1_last_q  <= n_last;
    p1_raw_q   <= n_raw;
    p1_s_q     <= seg_s_q;
    p1_chunk_q <= n_chunk;
    p1_i_q     <= seg_i_q;
    p1_fb_q    <= n_fb;
    p1_slot_q  <= wslot_q;
    p1_eth_q   <= n_eth;
  end

  // P1 -> P2: partial sums of the range (even positions are high bytes).
  logic [8*18-1:0] psum;
  logic [15:0]     w16;
  always_comb begin
    psum = '0;
    for (int w = 0; w < NB / 2; w++) begin
      w16 = '0;
      for (int h = 0; h < 2; h++) begin
        if (7'(2 * w + h) >= p1_lo_q && 7'(2 * w + h) < p1_hi_q) w16[8*(1-h) +: 8] = p1_d_q[8*(2*w+h) +: 8];
      end
      psum[18*(w/4) +: 18] = psum[18*(w/4) +: 18] + 18'(w16);
    end
  end

  logic [8*18-1:0] p2_psum_q;
  logic            p2_fin_q, p2_first_q, p2_last_q, p2_raw_q;
  logic [PW-1:0]   p2_s_q, p2_chunk_q;
  logic [15:0]     p2_i_q;
  logic [PT-1:0]   p2_fb_q;
  always_ff @(posedge clk_i) begin
    p2_psum_q  <= psum;
    p2_fin_q   <= p1_fin_q;
    p2_first_q <= p1_first_q;
    p2_last_q  <= p1_last_q;
    p2_raw_q   <= p1_raw_q;
    p2_s_q     <= p1_s_q;
    p2_chunk_q <= p1_chunk_q;
    p2_i_q     <= p1_i_q;
    p2_fb_q    <= p1_fb_q;
    p2_slot_q  <= p1_slot_q;
    p2_eth_q   <= p1_eth_q;
  end

  // P2: the segment's running sum.
  logic [31:0] acc_q, acc;
  logic [20:0] bsum;
  always_comb begin
    bsum = '0;
    for (int g = 0; g < 8; g++) bsum = bsum + 21'(p2_psum_q[18*g +: 18]);
    acc = (p2_first_q ? 32'd0 : acc_q) + 32'(bsum);
  end

  logic [31:0]   p3_acc_q;
  logic          p3_last_q, p3_raw_q;
  logic [PW-1:0] p3_s_q, p3_chunk_q;
  logic [15:0]   p3_i_q;
  logic [PT-1:0] p3_fb_q;
  always_ff @(posedge clk_i) begin
    if (p2_v_q) acc_q <= acc;
    p3_acc_q   <= acc;
    p3_last_q  <= p2_last_q;
    p3_raw_q   <= p2_raw_q;
    p3_s_q     <= p2_s_q;
    p3_chunk_q <= p2_chunk_q;
    p3_i_q     <= p2_i_q;
    p3_fb_q    <= p2_fb_q;
    p3_slot_q  <= p2_slot_q;
    p3_eth_q   <= p2_eth_q;
  end

  // P3: the segment's header fields (kite::tx_lso's loop), lengths first.
  logic [PW-1:0] f_dd, f_slen, f_hl;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [PW-1:0] f_l4len, f_iplen;  // below 64 KiB
  /* verilator lint_on UNUSEDSIGNAL */
  logic [15:0]   f_l3len, f_id, f_pay, f_ulen;
  logic [31:0]   f_seq;
  logic [7:0]    f_fl, f_nb;
  logic [PT-1:0] f_a0, f_free;
  logic [127:0]  f_eth;
  logic [31:0]   f_kb;
  logic [16:0]   f_x;
  always_comb begin
    f_hl    = p3_raw_q ? '0 : PW'(k_hlen_q);
    f_dd    = p3_raw_q ? '0 : p3_s_q - f_hl;
    f_slen  = f_hl + p3_chunk_q;
    f_nb    = 8'((f_slen + PW'(NB - 1)) >> 6);
    f_a0    = p3_fb_q + PT'(f_dd >> 6);
    f_free  = p3_raw_q ? p3_fb_q + PT'(f_nb) : p3_fb_q + PT'((p3_s_q + p3_chunk_q + (p3_last_q ? PW'(NB - 1) : '0)) >> 6);
    f_iplen = f_slen - PW'(k_l3_q);
    f_l3len = 16'(f_iplen - (k_v4_q ? '0 : PW'(40)));
    f_id    = k_id_q + p3_i_q;
    f_l4len = f_slen - PW'(k_l4_q);
    f_ulen  = 16'(f_l4len);
    f_seq   = k_seq_q + 32'(f_dd);
    f_fl    = k_fl_q & (p3_last_q ? 8'hff : ~8'h09) & (p3_i_q == '0 ? 8'hff : ~8'h80);
    f_pay   = kite_rtl_pkg::oc_fold32(p3_acc_q);
    if (k_hlen_q[0] ^ p3_s_q[0]) f_pay = {f_pay[7:0], f_pay[15:8]};
    // P4's L4 sum in two halves, the terms but the payload and the length
    // added here: k_* do not change while a record is in P3..P4.
    f_kb    = 32'(k_l4sum_q) + 32'(k_nh_q) + (k_tcp_q ? 32'(f_fl) : 32'd0);
    f_x     = k_tcp_q ? 17'(f_seq[31:16]) + 17'(f_seq[15:0]) : 17'(f_ulen);
    f_eth   = p3_eth_q;
    if (!p3_raw_q) begin
      f_eth[5]   = 1'b0;
      f_eth[2:0] = 3'b000;
    end
  end

  // P4: the checksums.
  logic          g_raw_q, g_last_q, g_slot_q;
  logic [5:0]    g_sh_q;
  logic [15:0]   g_slen_q;
  logic [15:0]   g_l3len_q, g_iplen_q, g_id_q, g_pay_q, g_ulen_q;
  logic [31:0]   g_seq_q;
  logic [7:0]    g_fl_q, g_nb_q;
  logic [PT-1:0] g_a0_q, g_free_q;
  logic [127:0]  g_eth_q;
  logic [31:0]   g_kb_q;
  logic [16:0]   g_x_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) g_v_q <= 1'b0;
    else g_v_q <= p3_v_q;
  end
  always_ff @(posedge clk_i) begin
    g_raw_q   <= p3_raw_q;
    g_last_q  <= p3_last_q;
    g_slot_q  <= p3_slot_q;
    g_sh_q    <= f_dd[5:0];
    g_slen_q  <= 16'(f_slen);
    g_l3len_q <= f_l3len;
    g_iplen_q <= 16'(f_iplen);
    g_id_q    <= f_id;
    g_pay_q   <= f_pay;
    g_ulen_q  <= f_ulen;
    g_seq_q   <= f_seq;
    g_fl_q    <= f_fl;
    g_nb_q    <= f_nb;
    g_a0_q    <= f_a0;
    g_free_q  <= f_free;
    g_eth_q   <= f_eth;
    g_kb_q    <= f_kb;
    g_x_q     <= f_x;
  end

  logic [15:0] g_ipc, g_l4c;
  logic [31:0] g_tsum;
  always_comb begin
    g_ipc  = ~kite_rtl_pkg::oc_fold32(32'(k_ipsum_q) + 32'(g_iplen_q) + 32'(g_id_q));
    g_tsum = (g_kb_q + 32'(g_pay_q)) + (32'(g_ulen_q) + 32'(g_x_q));
    g_l4c  = ~kite_rtl_pkg::oc_fold32(g_tsum);
    if (!k_tcp_q && g_l4c == '0) g_l4c = 16'hffff;
  end

  // Record queue (LUT RAM).
  localparam int unsigned RW = 5 + 5 + 9 + 9 + PT + 6 + 8 + 16 + PT + 16 + 16 + 16 + 32 + 8 + 16 + 16 + 128;
  logic [RW-1:0] rec_mem [SEGS];
  logic [RW-1:0] rec_in;
  assign rec_in = g_raw_q ?
      {1'b1, g_last_q, 1'b0, 1'b0, 1'b0, 5'd0, 9'd0, 9'd0, g_a0_q, 6'd0, g_nb_q, g_slen_q, g_free_q,
       16'd0, 16'd0, 16'd0, 32'd0, 8'd0, 16'd0, 16'd0, g_eth_q} :
      {1'b0, g_last_q, g_slot_q, k_v4_q, k_tcp_q, k_l3_q, 9'(k_l4_q), 9'(k_hlen_q),
       g_a0_q, g_sh_q, g_nb_q, g_slen_q, g_free_q, g_l3len_q, g_id_q, g_ipc, g_seq_q, g_fl_q, g_l4c,
       g_ulen_q, g_eth_q};

  always_ff @(posedge clk_i) begin
    if (g_v_q) rec_mem[rec_wr_q[SW-1:0]] <= rec_in;
  end

  // ================================================================ readout
  logic          en, avail, issue, last_beat;
  logic [RW-1:0] rec;
  logic [7:0]    k_q;
  logic [PT-1:0] ra;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [PT-1:0] ra1;

  // Record fields (the readout uses a few; S2 the rest).
  logic          q_raw, q_last, q_slot, q_v4, q_tcp;
  logic [4:0]    q_l3;
  logic [8:0]    q_l4, q_hl;
  logic [PT-1:0] q_a0, q_free;
  logic [5:0]    q_sh;
  logic [7:0]    q_nb;
  logic [15:0]   q_slen, q_l3len, q_id, q_ipc, q_l4c, q_ulen;
  logic [31:0]   q_seq;
  logic [7:0]    q_fl;
  logic [127:0]  q_eth;
  /* verilator lint_on UNUSEDSIGNAL */

  assign rec = rec_mem[rec_rd_q[SW-1:0]];
  assign {q_raw, q_last, q_slot, q_v4, q_tcp, q_l3, q_l4, q_hl, q_a0, q_sh, q_nb, q_slen, q_free, q_l3len, q_id,
          q_ipc, q_seq, q_fl, q_l4c, q_ulen, q_eth} = rec;

  assign en        = !m_valid_o || m_ready_i;
  assign avail     = rec_cnt != '0;
  assign issue     = en && avail;
  assign last_beat = k_q == q_nb - 8'd1;
  assign ra        = q_a0 + PT'(k_q);
  assign ra1       = ra + 1'b1;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rec_wr_q   <= '0;
      rec_rd_q   <= '0;
      k_q        <= '0;
      free_ptr_q <= '0;
    end else begin
      if (g_v_q) rec_wr_q <= rec_wr_q + 1'b1;
      if (issue) begin
        k_q <= last_beat ? '0 : k_q + 8'd1;
        if (last_beat) begin
          rec_rd_q   <= rec_rd_q + 1'b1;
          free_ptr_q <= q_free;
        end
      end
    end
  end

  // S1: both banks read (beats ra and ra + 1).
  logic              s1_v_q, s1_sel_q;
  logic [DATA_W-1:0] s1_b0_q, s1_b1_q;
  logic [RW-1:0]     s1_rec_q;
  logic [7:0]        s1_k_q;
  logic [5:0]        s1_sh_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) s1_v_q <= 1'b0;
    else if (en) s1_v_q <= issue;
  end
  always_ff @(posedge clk_i) begin
    if (en) begin
      s1_b0_q  <= bank0[ra[0] ? ra1[BW:1] : ra[BW:1]];
      s1_b1_q  <= bank1[ra[BW:1]];
      s1_sel_q <= ra[0];
      s1_rec_q <= rec;
      s1_k_q   <= k_q;
      s1_sh_q  <= q_sh;
    end
  end

  // S1 -> S2: the payload shifted to its place in the segment.
  logic [2*DATA_W-1:0] win;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [2*DATA_W-1:0] shifted;
  /* verilator lint_on UNUSEDSIGNAL */
  assign win     = s1_sel_q ? {s1_b0_q, s1_b1_q} : {s1_b1_q, s1_b0_q};
  assign shifted = win >> {s1_sh_q, 3'b000};

  logic              s2_v_q;
  logic [DATA_W-1:0] s2_d_q;
  logic [RW-1:0]     s2_rec_q;
  logic [7:0]        s2_k_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) s2_v_q <= 1'b0;
    else if (en) s2_v_q <= s1_v_q;
  end
  always_ff @(posedge clk_i) begin
    if (en) begin
      s2_d_q   <= shifted[DATA_W-1:0];
      s2_rec_q <= s1_rec_q;
      s2_k_q   <= s1_k_q;
    end
  end

  // S2 -> output: the header with the segment's fields, then the payload.
  logic          o_raw, o_last, o_slot, o_v4, o_tcp;
  logic [4:0]    o_l3;
  logic [8:0]    o_l4, o_hl;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [PT-1:0] o_a0, o_free;
  logic [5:0]    o_sh;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [7:0]    o_nb;
  logic [15:0]   o_slen, o_l3len, o_id, o_ipc, o_l4c, o_ulen;
  logic [31:0]   o_seq;
  logic [7:0]    o_fl;
  logic [127:0]  o_eth;
  logic [DATA_W-1:0] od, hbeat;
  logic [NB-1:0]     okeep;
  logic [PW-1:0]     pos;
  logic [8:0]        p3r, p4r;

  assign {o_raw, o_last, o_slot, o_v4, o_tcp, o_l3, o_l4, o_hl, o_a0, o_sh, o_nb, o_slen, o_free, o_l3len, o_id,
          o_ipc, o_seq, o_fl, o_l4c, o_ulen, o_eth} = s2_rec_q;
  assign hbeat = hdr_q[o_slot][s2_k_q[1:0]];

  always_comb begin
    od    = s2_d_q;
    okeep = '0;
    for (int l = 0; l < NB; l++) begin
      pos = PW'(s2_k_q) * PW'(NB) + PW'(l);
      p3r = 9'(pos) - 9'(o_l3);
      p4r = 9'(pos) - o_l4;
      okeep[l] = pos < PW'(o_slen);
      if (!o_raw && pos < PW'(o_hl)) begin
        od[8*l +: 8] = hbeat[8*l +: 8];
        if (o_v4) begin
          if (p3r == 9'd2)  od[8*l +: 8] = o_l3len[15:8];
          if (p3r == 9'd3)  od[8*l +: 8] = o_l3len[7:0];
          if (p3r == 9'd4)  od[8*l +: 8] = o_id[15:8];
          if (p3r == 9'd5)  od[8*l +: 8] = o_id[7:0];
          if (p3r == 9'd10) od[8*l +: 8] = o_ipc[15:8];
          if (p3r == 9'd11) od[8*l +: 8] = o_ipc[7:0];
        end else begin
          if (p3r == 9'd4)  od[8*l +: 8] = o_l3len[15:8];
          if (p3r == 9'd5)  od[8*l +: 8] = o_l3len[7:0];
        end
        if (o_tcp) begin
          if (p4r == 9'd4)  od[8*l +: 8] = o_seq[31:24];
          if (p4r == 9'd5)  od[8*l +: 8] = o_seq[23:16];
          if (p4r == 9'd6)  od[8*l +: 8] = o_seq[15:8];
          if (p4r == 9'd7)  od[8*l +: 8] = o_seq[7:0];
          if (p4r == 9'd13) od[8*l +: 8] = o_fl;
          if (p4r == 9'd16) od[8*l +: 8] = o_l4c[15:8];
          if (p4r == 9'd17) od[8*l +: 8] = o_l4c[7:0];
        end else begin
          if (p4r == 9'd4)  od[8*l +: 8] = o_ulen[15:8];
          if (p4r == 9'd5)  od[8*l +: 8] = o_ulen[7:0];
          if (p4r == 9'd6)  od[8*l +: 8] = o_l4c[15:8];
          if (p4r == 9'd7)  od[8*l +: 8] = o_l4c[7:0];
        end
      end
      if (!okeep[l]) od[8*l +: 8] = 8'd0;
    end
  end

  logic o_end;
  assign o_end = s2_k_q == o_nb - 8'd1;

  // A slot is free once its super-frame's last beat has left the header mux.
  always_comb begin
    busy_clr = '0;
    if (en && s2_v_q && o_end && o_last && !o_raw) busy_clr[o_slot] = 1'b1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      m_valid_o <= 1'b0;
      seg_cnt_o <= '0;
    end else begin
      if (en) m_valid_o <= s2_v_q;
      if (en && s2_v_q && o_end && !o_raw) seg_cnt_o <= seg_cnt_o + 32'd1;
    end
  end

  always_ff @(posedge clk_i) begin
    if (en) begin
      m_data_o <= od;
      m_keep_o <= okeep;
      m_last_o <= o_end;
      m_eth_o  <= o_eth;
    end
  end

endmodule : kite_txp_tso
