// RX header parser and checksum verification over a 512-bit AXI-Stream.
//
// Input: frames without FCS (the MAC has checked and removed it), packed from
// lane 0. Output: one record per frame, 15 cycles after its last beat when
// the output is ready. Accepts one beat per cycle with no gap between
// frames, so 64-byte frames (one beat each) give one record per cycle.
//
// The record is the model's kite::parse_frame (fpga/model/rxp/parser.cpp)
// field for field, plus kite::l4_csum_check as l4_ok / l4_bad, the
// csum_syndrome sum (frame after its first 14 bytes, operation.rst) and the
// IP addresses for RSS:
//   Ethernet, up to two 802.1Q / 802.1ad tags, IPv4 with options, IPv6 with
//   hop-by-hop / routing / destination-options / fragment / AH extension
//   headers (at most 8, as the model), TCP (data offset checked), UDP (length
//   checked), RoCEv2 BTH (UDP port 4791, UDP length >= 20).
//
// Parse depth: the parser sees the first 128 bytes (two beats). A frame
// whose parse would have to read a header byte beyond them (only possible
// with IPv6 extension headers: IPv4 with options and two tags ends its BTH at
// byte 101) is reported with `deep` set, the L2/L3 fields filled and no L4
// verdict; the driver treats it as CHECKSUM_NONE. The model parses without a
// limit; the testbench proves the two agree on every frame whose parse stays
// within 128 bytes and that `deep` is set exactly on the others.
//
// How it streams without a frame buffer: the header window (beats 0 and 1)
// is parsed in a 12-stage pipeline (L2, L3, eight stages of one extension
// header each, the L4 header's read, L4) while every beat travels alongside.
// The stages are short (a byte read at a position and an add) so that each
// holds a few LUT levels; the cost is registers. The L4 checksum range
// [l4_off, end) is applied when the window-completing beat (beat 1, or beat 0
// of a one-beat frame) reaches the mask stage: it sums the whole 128-byte
// window, so beat 0 contributes there; later beats only need the range end.
// Lengths compared with the frame length beyond 128 bytes (IP total/payload
// length) are checked at the last beat.
module kite_rxp #(
  parameter int unsigned DATA_W = 512,
  parameter int unsigned LEN_W  = 16
) (
  input  logic                clk_i,
  input  logic                rst_ni,

  input  logic                s_valid_i,
  output logic                s_ready_o,
  input  logic [DATA_W-1:0]   s_data_i,
  input  logic [DATA_W/8-1:0] s_keep_i,
  input  logic                s_last_i,

  output logic                m_valid_o,
  input  logic                m_ready_i,
  output logic [LEN_W-1:0]    m_len_o,
  output logic [1:0]          m_num_vlans_o,
  output logic [15:0]         m_tci_o,          // first (outer) tag
  output logic [15:0]         m_ethertype_o,    // after the tags
  output logic [7:0]          m_l3_off_o,
  output logic [1:0]          m_l3_o,           // kite_rtl_pkg::l3_type_e
  output logic [15:0]         m_l3_hdr_len_o,
  output logic [15:0]         m_l3_end_o,
  output logic                m_ip_frag_o,
  output logic                m_ipv4_hdr_ok_o,
  output logic [7:0]          m_l4_proto_o,
  output logic [1:0]          m_l4_o,           // kite_rtl_pkg::l4_type_e
  output logic [15:0]         m_l4_off_o,
  output logic [15:0]         m_sport_o,
  output logic [15:0]         m_dport_o,
  output logic                m_roce_o,
  output logic [7:0]          m_bth_opcode_o,
  output logic [23:0]         m_bth_dqpn_o,
  output logic [23:0]         m_bth_psn_o,
  output logic                m_malformed_o,
  output logic                m_deep_o,         // headers beyond 128 bytes
  output logic [127:0]        m_src_ip_o,       // IPv4 in [31:0], network order
  output logic [127:0]        m_dst_ip_o,
  output logic                m_l4_ok_o,        // l4_csum_check == 1
  output logic                m_l4_bad_o,       // l4_csum_check == 0
  output logic [15:0]         m_csum_complete_o
);

  localparam int unsigned NB   = DATA_W / 8;   // 64 bytes per beat
  localparam int unsigned WB   = 2 * NB;       // header window: 128 bytes
  localparam int unsigned WIN  = 8 * WB;
  localparam int unsigned WINX = WIN + 8 * 20; // window + 20 zero bytes (L4 read)
  localparam int unsigned PW   = 17;           // byte positions
  localparam int unsigned CW   = $clog2(NB) + 1;
  localparam int unsigned NWS  = 8;            // extension-header stages (one header each)
  localparam int unsigned NST  = NWS + 1;      // and the L4 header's read
  localparam int unsigned NG   = 8;            // checksum groups of 8 words

  logic en, out_v_q;
  assign en        = !out_v_q || m_ready_i;
  assign s_ready_o = en;

  // Byte / big-endian 16-bit reads at a position inside the window.
  function automatic logic [7:0] rd8(input logic [WINX-1:0] w, input logic [6:0] p);
    rd8 = w[8*p +: 8];
  endfunction
  function automatic logic [15:0] rd16(input logic [WINX-1:0] w, input logic [6:0] p);
    rd16 = {w[8*p +: 8], w[8*p+8 +: 8]};
  endfunction
  function automatic logic is_ext(input logic [7:0] pr);
    is_ext = pr == 8'd0 || pr == 8'd43 || pr == 8'd60 || pr == 8'd44 || pr == 8'd51;
  endfunction

  // Beat info carried along every stage: first, last, window-complete,
  // skip (beat 0 of a multi-beat frame: summed later with the window),
  // window/beat base position, frame length so far.
  localparam int unsigned BIW = 4 + 2 * PW;

  // ================================================================ A: input
  logic              in_frame_q;
  logic              bidx1_q;          // next beat is beat 1
  logic [PW-1:0]     base_q, len_q;
  logic [DATA_W-1:0] hdr0_q;
  logic              first, wc;
  logic [DATA_W-1:0] d;
  logic [CW-1:0]     cnt;

  assign first = !in_frame_q;
  assign wc    = first ? s_last_i : bidx1_q;

  always_comb begin
    cnt = '0;
    for (int i = 0; i < NB; i++) begin
      d[8*i +: 8] = s_keep_i[i] ? s_data_i[8*i +: 8] : 8'd0;  // bytes past the end read 0
      cnt = cnt + CW'(s_keep_i[i]);
    end
  end

  logic            a_v_q;
  logic [BIW-1:0]  a_bi_q;
  logic [WIN-1:0]  a_win_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_frame_q <= 1'b0;
      bidx1_q    <= 1'b0;
      base_q     <= '0;
      len_q      <= '0;
      a_v_q      <= 1'b0;
    end else if (en) begin
      a_v_q <= s_valid_i;
      if (s_valid_i) begin
        in_frame_q <= !s_last_i;
        bidx1_q    <= first && !s_last_i;
        base_q     <= (first ? '0 : base_q) + PW'(NB);
        len_q      <= (first ? '0 : len_q) + PW'(cnt);
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (en) begin
      if (s_valid_i && first) hdr0_q <= d;
      a_bi_q  <= {first, s_last_i, wc, first && !s_last_i,
                  (wc || first) ? PW'(0) : base_q, (first ? '0 : len_q) + PW'(cnt)};
      a_win_q <= (wc && !first) ? {d, hdr0_q} : {{DATA_W{1'b0}}, d};
    end
  end

  logic          a_last;
  logic [PW-1:0] a_len;
  assign a_last = a_bi_q[BIW-2];
  assign a_len  = a_bi_q[PW-1:0];

  // Frame length as far as the window parse can know it: exact on the last
  // beat; otherwise the frame has more than 128 bytes.
  function automatic logic len_lt(input logic last, input logic [PW-1:0] len, input logic [PW-1:0] t);
    len_lt = last && len < t;
  endfunction

  // ================================================================ A -> B: L2
  logic [WINX-1:0] a_wx;
  logic [15:0]     e12, e16;
  logic            t1, t2;
  logic            l2_mal, l2_ip;
  logic [1:0]      nv;
  logic [15:0]     tci, et;
  logic [4:0]      l3off;

  always_comb begin
    a_wx   = {160'd0, a_win_q};
    e12    = rd16(a_wx, 7'd12);
    e16    = rd16(a_wx, 7'd16);
    t1     = e12 == 16'h8100 || e12 == 16'h88a8;
    t2     = t1 && (e16 == 16'h8100 || e16 == 16'h88a8);
    l2_mal = 1'b0;
    nv     = '0;
    tci    = '0;
    et     = '0;
    l3off  = '0;
    if (len_lt(a_last, a_len, PW'(14))) begin
      l2_mal = 1'b1;
    end else if (t1 && len_lt(a_last, a_len, PW'(18))) begin
      l2_mal = 1'b1;
    end else if (t2 && len_lt(a_last, a_len, PW'(22))) begin
      l2_mal = 1'b1;
      nv     = 2'd1;
      tci    = rd16(a_wx, 7'd14);
    end else begin
      nv     = {1'b0, t1} + {1'b0, t2};
      tci    = t1 ? rd16(a_wx, 7'd14) : 16'd0;
      l3off  = t2 ? 5'd22 : (t1 ? 5'd18 : 5'd14);
      et     = t2 ? rd16(a_wx, 7'd20) : (t1 ? e16 : e12);
    end
    l2_ip = !l2_mal && (et == 16'h0800 || et == 16'h86dd);
  end

  logic            b_v_q;
  logic [BIW-1:0]  b_bi_q;
  logic [WIN-1:0]  b_win_q;
  logic            b_mal_q, b_ip_q;
  logic [1:0]      b_nv_q;
  logic [15:0]     b_tci_q, b_et_q;
  logic [4:0]      b_l3off_q;
  logic [8*60-1:0] b_l3w_q;          // 60 bytes from the L3 offset

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) b_v_q <= 1'b0;
    else if (en) b_v_q <= a_v_q;
  end

  always_ff @(posedge clk_i) begin
    if (en) begin
      b_bi_q    <= a_bi_q;
      b_win_q   <= a_win_q;
      b_mal_q   <= l2_mal;
      b_ip_q    <= l2_ip;
      b_nv_q    <= nv;
      b_tci_q   <= tci;
      b_et_q    <= et;
      b_l3off_q <= l3off;
      b_l3w_q   <= t2 ? a_win_q[8*22 +: 8*60] : (t1 ? a_win_q[8*18 +: 8*60] : a_win_q[8*14 +: 8*60]);
    end
  end

  // ================================================================ B -> C: L3 header
  logic          b_last;
  logic [PW-1:0] b_len;
  assign b_last = b_bi_q[BIW-2];
  assign b_len  = b_bi_q[PW-1:0];

  logic           v4, v6, c_l3v4, c_l3v6, c_mal, c_frag;
  logic [3:0]     ver, ihl;
  logic [15:0]    tot, plen;
  logic [PW-1:0]  c_l3end, c_l4pos;
  logic [7:0]     c_proto;
  logic [127:0]   src, dst;
  logic [20:0]    hsum;
  logic [32*21-1:0] hterm;

  always_comb begin
    v4      = b_ip_q && b_et_q == 16'h0800;
    v6      = b_ip_q && b_et_q == 16'h86dd;
    ver     = b_l3w_q[7:4];
    ihl     = b_l3w_q[3:0];
    tot     = {b_l3w_q[8*2 +: 8], b_l3w_q[8*3 +: 8]};
    plen    = {b_l3w_q[8*4 +: 8], b_l3w_q[8*5 +: 8]};
    c_mal   = b_mal_q;
    c_l3v4  = 1'b0;
    c_l3v6  = 1'b0;
    c_frag  = 1'b0;
    c_l3end = '0;
    c_l4pos = '0;
    c_proto = '0;
    if (v4) begin
      if (len_lt(b_last, b_len, PW'(b_l3off_q) + PW'(20)) || ver != 4'd4 || ihl < 4'd5 ||
          tot < {10'd0, ihl, 2'b00}) begin
        c_mal = 1'b1;
      end else begin
        c_l3v4  = 1'b1;
        c_l3end = PW'(b_l3off_q) + PW'(tot);
        c_frag  = ({b_l3w_q[8*6 +: 8], b_l3w_q[8*7 +: 8]} & 16'h3fff) != 16'd0;
        c_proto = b_l3w_q[8*9 +: 8];
        c_l4pos = PW'(b_l3off_q) + PW'({ihl, 2'b00});
      end
    end
    if (v6) begin
      if (len_lt(b_last, b_len, PW'(b_l3off_q) + PW'(40)) || ver != 4'd6) begin
        c_mal = 1'b1;
      end else begin
        c_l3v6  = 1'b1;
        c_l3end = PW'(b_l3off_q) + PW'(40) + PW'(plen);
        c_proto = b_l3w_q[8*6 +: 8];
        c_l4pos = PW'(b_l3off_q) + PW'(40);
      end
    end
    src = '0;
    dst = '0;
    if (c_l3v6) begin
      for (int i = 0; i < 16; i++) begin
        src[8*(15-i) +: 8] = b_l3w_q[8*(8+i) +: 8];
        dst[8*(15-i) +: 8] = b_l3w_q[8*(24+i) +: 8];
      end
    end else if (c_l3v4) begin
      for (int i = 0; i < 4; i++) begin
        src[8*(3-i) +: 8] = b_l3w_q[8*(12+i) +: 8];
        dst[8*(3-i) +: 8] = b_l3w_q[8*(16+i) +: 8];
      end
    end
    // IPv4 header sum over 4*IHL bytes (checksum field included).
    // As a balanced tree: an add chain of 30 was 41 LUT levels deep
    // (fpga/syn/depth.py).
    for (int w = 0; w < 32; w++)
      hterm[21*w +: 21] = w < 30 && 6'(w) < {1'b0, ihl, 1'b0} ?
                          21'({b_l3w_q[16*w +: 8], b_l3w_q[16*w+8 +: 8]}) : 21'd0;
    hsum = kite_rtl_pkg::sum32x21(hterm);
  end

  // Static part of the frame record (fixed after stage C).
  //   nv 2, tci 16, et 16, l3off 5, l3v4, l3v6, l3end PW, src 128, dst 128
  localparam int unsigned STW = 2 + 16 + 16 + 5 + 2 + PW + 256;

  logic            c_v_q;
  logic [BIW-1:0]  c_bi_q;
  logic [WIN-1:0]  c_win_q;
  logic [STW-1:0]  c_st_q;
  logic            c_mal_q, c_frag_q, c_act_q, c_hok_q;
  logic [7:0]      c_proto_q;
  logic [PW-1:0]   c_l4pos_q;
  logic [20:0]     c_hsum_q;
  logic [15:0]     c_hfield_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) c_v_q <= 1'b0;
    else if (en) c_v_q <= b_v_q;
  end

  always_ff @(posedge clk_i) begin
    if (en) begin
      c_bi_q     <= b_bi_q;
      c_win_q    <= b_win_q;
      c_st_q     <= {b_nv_q, b_tci_q, b_et_q, b_l3off_q, c_l3v4, c_l3v6, c_l3end, src, dst};
      c_mal_q    <= c_mal;
      c_frag_q   <= c_frag;
      c_act_q    <= c_l3v6;
      c_proto_q  <= c_proto;
      c_l4pos_q  <= c_l4pos;
      c_hsum_q   <= hsum;
      c_hfield_q <= {b_l3w_q[8*10 +: 8], b_l3w_q[8*11 +: 8]};
      c_hok_q    <= c_l3v4;
    end
  end

  // ================================================================ C -> W0..W8: IPv6 extension headers, L4 read
  // Walk stage g reads (mal, frag, act, deep, proto, l4pos) from stage g-1
  // (stage C for g = 0) and walks at most one header: each is a byte read
  // at a position the header before gave, so two in one stage would be two
  // reads and two adds in series. Flat vectors, one slot per stage.
  localparam int unsigned WSW = 4 + 8 + PW;   // mal, frag, act, deep, proto, l4pos
  logic [NST*WSW-1:0]  ws_q;
  logic [NST*WIN-1:0]  ww_q;
  logic [NST*BIW-1:0]  wb_q;
  logic [NST*STW-1:0]  wst_q;
  logic [NST-1:0]      wv_q;
  logic [NST-1:0]      whok_q;
  logic [21:0]         asum_q;      // the pseudo header's address words, summed
  logic [8*20-1:0]     l4w_q;       // UDP/TCP/BTH bytes at l4pos

  logic c_hok;
  assign c_hok = c_hok_q && kite_rtl_pkg::oc_fold32(32'(c_hsum_q)) == 16'hffff && c_hfield_q != 16'hffff;

  for (genvar g = 0; g < NST; g++) begin : g_walk
    logic            in_v, in_hok;
    logic [WSW-1:0]  in_ws;
    logic [WIN-1:0]  in_w;
    logic [BIW-1:0]  in_b;
    logic [STW-1:0]  in_st;
    logic            mal, frag, act, deep;
    logic [7:0]      proto, nb, lb;
    logic [PW-1:0]   l4pos, hl, l3end;
    logic [WINX-1:0] wx;

    if (g == 0) begin : g_in0
      assign in_v   = c_v_q;
      assign in_hok = c_hok;
      assign in_ws  = {c_mal_q, c_frag_q, c_act_q, 1'b0, c_proto_q, c_l4pos_q};
      assign in_w   = c_win_q;
      assign in_b   = c_bi_q;
      assign in_st  = c_st_q;
    end else begin : g_in
      assign in_v   = wv_q[g-1];
      assign in_hok = whok_q[g-1];
      assign in_ws  = ws_q[(g-1)*WSW +: WSW];
      assign in_w   = ww_q[(g-1)*WIN +: WIN];
      assign in_b   = wb_q[(g-1)*BIW +: BIW];
      assign in_st  = wst_q[(g-1)*STW +: STW];
    end

    always_comb begin
      {mal, frag, act, deep, proto, l4pos} = in_ws;
      wx    = {160'd0, in_w};
      l3end = in_st[256 +: PW];
      nb    = '0;
      lb    = '0;
      hl    = '0;
      if (act && g < NWS) begin
        if (!is_ext(proto)) begin
          act = 1'b0;
        end else if (l4pos + PW'(8) > l3end) begin
          mal = 1'b1;
          act = 1'b0;
        end else if (l4pos >= PW'(WB)) begin
          deep = 1'b1;
          act  = 1'b0;
        end else begin
          nb = rd8(wx, l4pos[6:0]);
          lb = rd8(wx, l4pos[6:0] + 7'd1);
          if (proto == 8'd44) begin
            frag = 1'b1;
            hl   = PW'(8);
          end else if (proto == 8'd51) begin
            hl = (PW'(lb) + PW'(2)) << 2;
          end else begin
            hl = (PW'(lb) + PW'(1)) << 3;
          end
          proto = nb;
          l4pos = l4pos + hl;
          if (l4pos > l3end) begin
            mal = 1'b1;
            act = 1'b0;
          end
        end
      end
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) wv_q[g] <= 1'b0;
      else if (en) wv_q[g] <= in_v;
    end

    always_ff @(posedge clk_i) begin
      if (en) begin
        ws_q[g*WSW +: WSW]  <= {mal, frag, act, deep, proto, l4pos};
        ww_q[g*WIN +: WIN]  <= in_w;
        wb_q[g*BIW +: BIW]  <= in_b;
        wst_q[g*STW +: STW] <= in_st;
        whok_q[g]           <= in_hok;
      end
    end

    // The last stage walks no header. It reads the L4 header at l4pos, so
    // that stage H starts from registers, and sums the pseudo header's
    // address words (known from stage C on), so that stage H adds only the
    // protocol and the L4 length (known late, from the L4 header) to one
    // sum, not to a tree of sixteen.
    if (g == NST - 1) begin : g_l4read
      logic [21:0] asum;
      always_comb begin
        asum = '0;
        for (int i = 0; i < 16; i++) asum = asum + 22'(in_st[16*i +: 16]);
      end
      always_ff @(posedge clk_i) begin
        if (en) begin
          asum_q <= asum;
          l4w_q  <= wx[8*l4pos[6:0] +: 8*20];
        end
      end
    end
  end

  // ================================================================ W8 -> H: L4 header
  logic            h_v;
  logic [BIW-1:0]  h_bi;
  logic [STW-1:0]  h_st;
  logic            h_mal, h_frag, h_deep, h_hok;
  /* verilator lint_off UNUSEDSIGNAL */
  logic            h_act;             // after eight headers the walk just stops
  /* verilator lint_on UNUSEDSIGNAL */
  logic [7:0]      h_proto;
  logic [PW-1:0]   h_l4pos, h_l3end;
  logic [4:0]      h_l3off;
  logic            h_l3v4, h_l3v6;

  always_comb begin
    h_v   = wv_q[NST-1];
    h_bi  = wb_q[(NST-1)*BIW +: BIW];
    h_st  = wst_q[(NST-1)*STW +: STW];
    h_hok = whok_q[NST-1];
    {h_mal, h_frag, h_act, h_deep, h_proto, h_l4pos} = ws_q[(NST-1)*WSW +: WSW];
    h_l3end = h_st[256 +: PW];
    h_l3v6  = h_st[256 + PW];
    h_l3v4  = h_st[256 + PW + 1];
    h_l3off = h_st[256 + PW + 2 +: 5];
  end

  /* verilator lint_off UNUSEDSIGNAL */
  logic [8*20-1:0] l4w;               // UDP/TCP/BTH bytes; not all are reported
  /* verilator lint_on UNUSEDSIGNAL */
  logic [15:0]     sport, dport, ulen, ucs;
  logic [5:0]      doff;
  logic            l3ok, r_mal, r_deep, r_roce, r_cken;
  logic [1:0]      r_l3, r_l4;
  logic [15:0]     r_l3hl, r_l4off, r_sport, r_dport;
  logic [7:0]      r_proto, r_bop;
  logic [23:0]     r_dqpn, r_psn;
  logic [PW-1:0]   r_ckend, r_l3end;
  logic            r_uend;            // r_ckend is the UDP length's end, not l3end
  logic [15:0]     r_l4len;           // 16'(r_ckend - h_l4pos), without the add
  logic            r_frag;

  always_comb begin
    l4w   = l4w_q;
    sport = {l4w[8*0 +: 8], l4w[8*1 +: 8]};
    dport = {l4w[8*2 +: 8], l4w[8*3 +: 8]};
    ulen  = {l4w[8*4 +: 8], l4w[8*5 +: 8]};
    ucs   = {l4w[8*6 +: 8], l4w[8*7 +: 8]};
    doff  = {l4w[8*12+4 +: 4], 2'b00};
    l3ok  = (h_l3v4 || h_l3v6) && !h_mal && !h_deep;
    r_mal   = h_mal;
    r_deep  = h_deep;
    r_frag  = h_frag;
    r_l3    = h_l3v4 ? kite_rtl_pkg::L3_IPV4 : (h_l3v6 ? kite_rtl_pkg::L3_IPV6 : kite_rtl_pkg::L3_NONE);
    r_l3end = h_l3end;
    r_l4    = kite_rtl_pkg::L4_NONE;
    r_l3hl  = '0;
    r_l4off = '0;
    r_proto = '0;
    r_sport = '0;
    r_dport = '0;
    r_roce  = 1'b0;
    r_bop   = '0;
    r_dqpn  = '0;
    r_psn   = '0;
    r_cken  = 1'b0;
    r_ckend = h_l3end;
    r_uend  = 1'b0;
    r_l4len = 16'(h_l3end - h_l4pos);
    if (l3ok) begin
      r_l3hl  = 16'(h_l4pos - PW'(h_l3off));
      r_l4off = 16'(h_l4pos);
      r_proto = h_proto;
      if (h_frag) begin
        r_l4 = kite_rtl_pkg::L4_OTHER;
      end else if (h_proto == 8'd6) begin
        if (h_l4pos + PW'(20) > h_l3end) r_mal = 1'b1;
        else if (h_l4pos + PW'(12) >= PW'(WB)) r_deep = 1'b1;
        else if (doff < 6'd20 || h_l4pos + PW'(doff) > h_l3end) r_mal = 1'b1;
        else begin
          r_l4    = kite_rtl_pkg::L4_TCP;
          r_sport = sport;
          r_dport = dport;
          r_cken  = 1'b1;
        end
      end else if (h_proto == 8'd17) begin
        if (h_l4pos + PW'(8) > h_l3end) r_mal = 1'b1;
        else if (h_l4pos + PW'(5) >= PW'(WB)) r_deep = 1'b1;
        else if (ulen < 16'd8 || h_l4pos + PW'(ulen) > h_l3end) r_mal = 1'b1;
        else begin
          r_l4    = kite_rtl_pkg::L4_UDP;
          r_sport = sport;
          r_dport = dport;
          r_ckend = h_l4pos + PW'(ulen);
          r_uend  = 1'b1;
          r_l4len = ulen;
          r_cken  = !(h_l3v4 && ucs == 16'd0);
          if (dport == 16'(kite_pkg::ROCEV2_UDP_PORT) && ulen >= 16'd20) begin
            if (h_l4pos + PW'(19) >= PW'(WB)) r_deep = 1'b1;
            else begin
              r_roce = 1'b1;
              r_bop  = l4w[8*8 +: 8];
              r_dqpn = {l4w[8*13 +: 8], l4w[8*14 +: 8], l4w[8*15 +: 8]};
              r_psn  = {l4w[8*17 +: 8], l4w[8*18 +: 8], l4w[8*19 +: 8]};
            end
          end
        end
      end else begin
        r_l4 = kite_rtl_pkg::L4_OTHER;
      end
    end else if (h_mal) begin
      // Malformed inside the extension headers: the model leaves l3_hdr_len,
      // l4_proto and l4_off at 0 (ip_frag as far as it got).
    end
    if (r_deep) begin
      // Beyond the parse depth: no L4 result.
      r_l4    = kite_rtl_pkg::L4_NONE;
      r_mal   = 1'b0;
      r_cken  = 1'b0;
      r_sport = '0;
      r_dport = '0;
      r_roce  = 1'b0;
      r_bop   = '0;
      r_dqpn  = '0;
      r_psn   = '0;
    end
    if (r_mal) r_cken = 1'b0;
  end

  // Pseudo header: addresses, protocol, L4 length (IPv4 addresses are
  // zero-extended, so the IPv6 form covers both).
  logic [21:0] pseudo;
  logic [127:0] h_src, h_dst;
  assign h_src = h_st[128 +: 128];
  assign h_dst = h_st[0 +: 128];
  assign pseudo = asum_q + (22'(r_proto) + 22'(r_l4len));

  // Frame record after the parse:
  //   nv 2, tci 16, et 16, l3off 5, l3 2, l3hl 16, l3end PW, frag, hok, proto 8,
  //   l4 2, l4off 16, sport 16, dport 16, roce, bop 8, dqpn 24, psn 24, mal, deep,
  //   src 128, dst 128, cken, ckstart 7, ckend PW, pseudo 22
  localparam int unsigned RW = 2 + 16 + 16 + 5 + 2 + 16 + PW + 1 + 1 + 8 + 2 + 16 + 16 + 16 + 1 + 8 +
                               24 + 24 + 1 + 1 + 256 + 1 + 7 + PW + 22;
  logic [RW-1:0] rec_new, rec_q, rec;

  assign rec_new = {h_st[STW-1 -: 39], r_l3, r_l3hl, r_l3end, r_frag, h_hok && l3ok, r_proto,
                    r_l4, r_l4off, r_sport, r_dport, r_roce, r_bop, r_dqpn, r_psn, r_mal, r_deep,
                    h_src, h_dst, r_cken, h_l4pos[6:0], r_ckend, pseudo};

  logic h_wc;
  assign h_wc = h_bi[BIW-3];
  assign rec  = h_wc ? rec_new : rec_q;

  always_ff @(posedge clk_i) begin
    if (en && h_v && h_wc) rec_q <= rec_new;
  end

  // ================================================================ H -> M: checksum byte masks
  // The window-completing beat sums the 128-byte window from l4_off; later
  // beats (base >= 128) only need the range end; skipped beats give 0.
  function automatic logic [7:0] beat_end(input logic [PW-1:0] e, input logic [PW-1:0] base);
    logic [PW-1:0] rel;
    rel = e - base;
    beat_end = e <= base ? 8'd0 : rel > PW'(WB) ? 8'(WB) : 8'(rel);
  endfunction

  logic [PW-1:0] h_base;
  logic [7:0]    rs_l4, re_l4, rs_all;
  logic          h_skip;
  logic          q_cken;
  logic [6:0]    rec_ckstart;
  logic [PW-1:0] q_ckend;

  always_comb begin
    h_skip      = h_bi[BIW-4];
    h_base      = h_bi[PW +: PW];
    rec_ckstart = rec[22 + PW +: 7];
    q_cken      = rec_q[22 + PW + 7];
    q_ckend     = rec_q[22 +: PW];
    rs_all      = h_wc ? 8'd14 : 8'd0;
    rs_l4       = h_wc ? {1'b0, rec_ckstart} : 8'd0;
    // The window-completing beat's end is rec_new's, which the L4 checks
    // settle late: the two ends it can be are cut to the beat beside those
    // checks, and the checks select.
    if (h_wc) re_l4 = !r_cken ? 8'd0 : r_uend ? beat_end(h_l4pos + PW'(ulen), h_base) : beat_end(h_l3end, h_base);
    else re_l4 = !q_cken ? 8'd0 : beat_end(q_ckend, h_base);
    if (h_skip) begin
      rs_all = 8'(WB);
      rs_l4  = 8'(WB);
    end
  end

  logic            m_v_q, m_first_q, m_last_q;
  logic [WIN-1:0]  m_win_q;
  logic [7:0]      m_rsall_q, m_rsl4_q, m_rel4_q;
  logic [PW-1:0]   m_len_q;
  logic [RW-1:0]   m_rec_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) m_v_q <= 1'b0;
    else if (en) m_v_q <= h_v;
  end

  always_ff @(posedge clk_i) begin
    if (en) begin
      m_first_q <= h_bi[BIW-1];
      m_last_q  <= h_bi[BIW-2];
      m_len_q   <= h_bi[PW-1:0];
      m_win_q   <= ww_q[(NST-1)*WIN +: WIN];
      m_rsall_q <= rs_all;
      m_rsl4_q  <= rs_l4;
      m_rel4_q  <= re_l4;
      m_rec_q   <= rec;
    end
  end

  // ---------------------------------------------------------------- M -> N: masked word sums
  logic [NG*20-1:0] p_all, p_l4;
  logic [15:0]      w_all, w_l4;

  always_comb begin
    p_all = '0;
    p_l4  = '0;
    for (int w = 0; w < WB / 2; w++) begin
      w_all = '0;
      w_l4  = '0;
      for (int h = 0; h < 2; h++) begin
        if (8'(2 * w + h) >= m_rsall_q) w_all[8*(1-h) +: 8] = m_win_q[8*(2*w+h) +: 8];
        if (8'(2 * w + h) >= m_rsl4_q && 8'(2 * w + h) < m_rel4_q) w_l4[8*(1-h) +: 8] = m_win_q[8*(2*w+h) +: 8];
      end
      p_all[20*(w/8) +: 20] = p_all[20*(w/8) +: 20] + 20'(w_all);
      p_l4[20*(w/8) +: 20]  = p_l4[20*(w/8) +: 20] + 20'(w_l4);
    end
  end

  logic              n_v_q, n_first_q, n_last_q;
  logic [NG*20-1:0]  n_all_q, n_l4_q;
  logic [PW-1:0]     n_len_q;
  logic [RW-1:0]     n_rec_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) n_v_q <= 1'b0;
    else if (en) n_v_q <= m_v_q;
  end

  always_ff @(posedge clk_i) begin
    if (en) begin
      n_first_q <= m_first_q;
      n_last_q  <= m_last_q;
      n_all_q   <= p_all;
      n_l4_q    <= p_l4;
      n_len_q   <= m_len_q;
      n_rec_q   <= m_rec_q;
    end
  end

  // ---------------------------------------------------------------- N -> P: group sums, accumulate
  logic [22:0] bs_all, bs_l4;
  logic [31:0] acc_all_q, acc_l4_q, sum_all, sum_l4;

  always_comb begin
    bs_all = '0;
    bs_l4  = '0;
    for (int g = 0; g < NG; g++) begin
      bs_all = bs_all + 23'(n_all_q[20*g +: 20]);
      bs_l4  = bs_l4 + 23'(n_l4_q[20*g +: 20]);
    end
    sum_all = (n_first_q ? 32'd0 : acc_all_q) + 32'(bs_all);
    sum_l4  = (n_first_q ? 32'd0 : acc_l4_q) + 32'(bs_l4);
  end

  always_ff @(posedge clk_i) begin
    if (en && n_v_q) begin
      acc_all_q <= sum_all;
      acc_l4_q  <= sum_l4;
    end
  end

  logic              p_v_q;
  logic [31:0]       p_all_q, p_l4_q;
  logic [PW-1:0]     p_len_q;
  logic [RW-1:0]     p_rec_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) p_v_q <= 1'b0;
    else if (en) p_v_q <= n_v_q && n_last_q;
  end

  always_ff @(posedge clk_i) begin
    if (en) begin
      p_all_q <= sum_all;
      p_l4_q  <= sum_l4;
      p_len_q <= n_len_q;
      p_rec_q <= n_rec_q;
    end
  end

  // ---------------------------------------------------------------- P -> out: verdicts
  logic [1:0]    o_nv, o_l3, o_l4;
  logic [15:0]   o_tci, o_et, o_l3hl, o_l4off, o_sport, o_dport;
  logic [4:0]    o_l3off;
  logic [PW-1:0] o_l3end;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [PW-1:0] o_ckend;         // used a stage earlier, for the masks
  logic [6:0]    o_ckstart;
  /* verilator lint_on UNUSEDSIGNAL */
  logic          o_frag, o_hok, o_roce, o_mal, o_deep, o_cken;
  logic [7:0]    o_proto, o_bop;
  logic [23:0]   o_dqpn, o_psn;
  logic [127:0]  o_src, o_dst;
  logic [21:0]   o_pseudo;
  logic          short;           // the IP datagram does not fit in the frame
  logic [15:0]   f_l4;

  assign {o_nv, o_tci, o_et, o_l3off, o_l3, o_l3hl, o_l3end, o_frag, o_hok, o_proto, o_l4, o_l4off,
          o_sport, o_dport, o_roce, o_bop, o_dqpn, o_psn, o_mal, o_deep, o_src, o_dst, o_cken,
          o_ckstart, o_ckend, o_pseudo} = p_rec_q;

  always_comb begin
    short = o_l3 != kite_rtl_pkg::L3_NONE && o_l3end > p_len_q;
    f_l4  = kite_rtl_pkg::oc_fold32(p_l4_q + 32'(o_pseudo));
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) out_v_q <= 1'b0;
    else if (en) out_v_q <= p_v_q;
  end

  always_ff @(posedge clk_i) begin
    if (en) begin
      m_len_o           <= LEN_W'(p_len_q);
      m_num_vlans_o     <= o_nv;
      m_tci_o           <= o_tci;
      m_ethertype_o     <= o_et;
      m_l3_off_o        <= 8'(o_l3off);
      m_csum_complete_o <= kite_rtl_pkg::oc_fold32(p_all_q);
      if (short) begin
        // The model rejects the IP header first: nothing above L2 is reported.
        m_l3_o          <= kite_rtl_pkg::L3_NONE;
        m_l3_hdr_len_o  <= '0;
        m_l3_end_o      <= '0;
        m_ip_frag_o     <= 1'b0;
        m_ipv4_hdr_ok_o <= 1'b0;
        m_l4_proto_o    <= '0;
        m_l4_o          <= kite_rtl_pkg::L4_NONE;
        m_l4_off_o      <= '0;
        m_sport_o       <= '0;
        m_dport_o       <= '0;
        m_roce_o        <= 1'b0;
        m_bth_opcode_o  <= '0;
        m_bth_dqpn_o    <= '0;
        m_bth_psn_o     <= '0;
        m_malformed_o   <= 1'b1;
        m_deep_o        <= 1'b0;
        m_src_ip_o      <= '0;
        m_dst_ip_o      <= '0;
        m_l4_ok_o       <= 1'b0;
        m_l4_bad_o      <= 1'b0;
      end else begin
        m_l3_o          <= o_l3;
        m_l3_hdr_len_o  <= o_l3hl;
        m_l3_end_o      <= 16'(o_l3end);
        m_ip_frag_o     <= o_frag;
        m_ipv4_hdr_ok_o <= o_hok;
        m_l4_proto_o    <= o_proto;
        m_l4_o          <= o_l4;
        m_l4_off_o      <= o_l4off;
        m_sport_o       <= o_sport;
        m_dport_o       <= o_dport;
        m_roce_o        <= o_roce;
        m_bth_opcode_o  <= o_bop;
        m_bth_dqpn_o    <= o_dqpn;
        m_bth_psn_o     <= o_psn;
        m_malformed_o   <= o_mal;
        m_deep_o        <= o_deep;
        m_src_ip_o      <= o_src;
        m_dst_ip_o      <= o_dst;
        m_l4_ok_o       <= o_cken && f_l4 == 16'hffff;
        m_l4_bad_o      <= o_cken && f_l4 != 16'hffff;
      end
    end
  end

  assign m_valid_o = out_v_q;

endmodule : kite_rxp
