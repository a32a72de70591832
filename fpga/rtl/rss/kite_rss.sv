// Toeplitz RSS engine with NCTX contexts, each a programmable 40-byte key,
// hash field selection and an indirection table of up to 256 entries; the
// context is chosen per tuple (s_ctx_i; the card: {port, context within the
// port}, the model's rss_index). Fully pipelined: accepts one flow tuple per
// cycle (needed for 148.8 Mpps of 64-byte frames at 250 MHz), latency 4.
//
// Hash input follows the Microsoft RSS definition used by every NIC driver:
// src addr, dst addr[, src port, dst port], in network byte order, bits taken
// MSB first. The queue is table[hash mod table_size] (operation.rst: RSS;
// the model's RxPipeline::receive); table_size is a power of two up to 256
// (SET_RSS rejects others), so the mod is a mask. A malformed frame, a
// tuple no enabled field matches, or hash_fields = 0: hash 0, type NONE,
// queue table[0] (the model's rss_hash does not hash malformed frames).
//
// Storage: fields and table size are flops (reset: fields 0, size 256);
// keys are ten 32-bit wide LUT RAMs of NCTX words read into a register in
// stage 0 (so the XOR trees of stage 1 see a flop, as with one key); the
// tables are one RAM of NCTX * 256 entries (block RAM for the card's 32)
// read in stage 3 as before. Keys and tables are not reset: a context is
// written in full before it is used (fields 0 hash nothing).
//
// Written in the SystemVerilog subset that both Verilator 5.006 and yosys 0.23
// accept (package items qualified, flat vectors, no `return`).
//
// Config port (register semantics, 32-bit writes to context cfg_ctx_i):
//   addr 0..9     key bytes 4a..4a+3, byte 4a in wdata[7:0] (memory order)
//   addr 16       hash_fields (kite_pkg rss_field bits) in wdata[7:0]
//   addr 17       table_size in wdata[8:0]: 1, 2, 4, .. 256 (256 after reset;
//                 other values are ignored)
//   addr 256..511 indirection table entry (addr - 256) = wdata[QN_W-1:0]
module kite_rss #(
  parameter int unsigned QN_W  = 16,  // queue number width
  parameter int unsigned TAG_W = 16,  // opaque per-request tag carried through
  parameter int unsigned NCTX  = 32,  // contexts
  localparam int unsigned CTX_W = NCTX > 1 ? $clog2(NCTX) : 1
) (
  input  logic              clk_i,
  input  logic              rst_ni,

  input  logic              cfg_we_i,
  input  logic [CTX_W-1:0]  cfg_ctx_i,
  input  logic [8:0]        cfg_addr_i,
  input  logic [31:0]       cfg_wdata_i,

  // Flow tuple from the parser. IPv4 addresses in [31:0], network order as a
  // number (first wire byte in the MSBs); IPv6 uses all 128 bits.
  input  logic              s_valid_i,
  output logic              s_ready_o,
  input  logic [CTX_W-1:0]  s_ctx_i,        // context (< NCTX)
  input  logic [1:0]        s_l3_i,         // kite_rtl_pkg::l3_type_e
  input  logic [1:0]        s_l4_i,         // kite_rtl_pkg::l4_type_e
  input  logic              s_malformed_i,  // the parser's verdict: not hashed
  input  logic [127:0]      s_src_ip_i,
  input  logic [127:0]      s_dst_ip_i,
  input  logic [15:0]       s_sport_i,
  input  logic [15:0]       s_dport_i,
  input  logic [TAG_W-1:0]  s_tag_i,

  output logic              m_valid_o,
  input  logic              m_ready_i,
  output logic [31:0]       m_hash_o,
  output logic [7:0]        m_hash_type_o,  // kite_pkg rss_hash_type
  output logic [QN_W-1:0]   m_queue_o,
  output logic [TAG_W-1:0]  m_tag_o
);

  localparam int unsigned IN_W   = 288;          // IPv6 4-tuple: 36 bytes
  localparam int unsigned KEY_W  = 320;          // 40-byte key
  localparam int unsigned NCHUNK = 6;            // partial XOR trees in stage 1
  localparam int unsigned CHUNK  = IN_W / NCHUNK;

  // ---------------------------------------------------------------- config
  logic [5:0]        fields_q [NCTX];  // rss_field bits 0..5
  logic [7:0]        mask_q   [NCTX];  // table_size - 1
  logic [QN_W-1:0]   table_q  [NCTX*256];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int c = 0; c < NCTX; c++) begin
        fields_q[c] <= '0;
        mask_q[c]   <= 8'hff;
      end
    end else if (cfg_we_i && !cfg_addr_i[8] && 32'(cfg_ctx_i) < NCTX) begin
      if (cfg_addr_i == 9'd16) begin
        fields_q[cfg_ctx_i] <= cfg_wdata_i[5:0];
      end
      if (cfg_addr_i == 9'd17 && cfg_wdata_i[31:9] == '0 && cfg_wdata_i[8:0] != '0 &&
          (cfg_wdata_i[8:0] & (cfg_wdata_i[8:0] - 9'd1)) == '0) begin
        mask_q[cfg_ctx_i] <= 8'(cfg_wdata_i[8:0] - 9'd1);
      end
    end
  end

  // Indirection tables: plain synchronous RAM (no reset) so it maps to BRAM.
  always_ff @(posedge clk_i) begin
    if (cfg_we_i && cfg_addr_i[8] && 32'(cfg_ctx_i) < NCTX) begin
      table_q[{cfg_ctx_i, cfg_addr_i[7:0]}] <= cfg_wdata_i[QN_W-1:0];
    end
  end

  // Whole pipeline advances together; a stall only when the output is held.
  logic en;
  logic v0_q, v1_q, v2_q, v3_q;
  assign en        = !v3_q || m_ready_i;
  assign s_ready_o = en;

  // ---------------------------------------------------------------- stage 0
  // Select hash type and build the left-aligned input bit string.
  logic [7:0]      type_d;
  logic [IN_W-1:0] in_d;
  logic [1:0]      l3_d;
  logic [5:0]      fields_d;
  assign l3_d     = s_malformed_i ? 2'(kite_rtl_pkg::L3_NONE) : s_l3_i;
  assign fields_d = fields_q[s_ctx_i];

  always_comb begin
    type_d = kite_pkg::RSS_HASH_TYPE_NONE;
    in_d   = '0;
    unique case (l3_d)
      kite_rtl_pkg::L3_IPV4: begin
        if (s_l4_i == kite_rtl_pkg::L4_TCP && fields_d[1]) begin
          type_d = kite_pkg::RSS_HASH_TYPE_IPV4_TCP;
        end else if (s_l4_i == kite_rtl_pkg::L4_UDP && fields_d[2]) begin
          type_d = kite_pkg::RSS_HASH_TYPE_IPV4_UDP;
        end else if (fields_d[0]) begin
          type_d = kite_pkg::RSS_HASH_TYPE_IPV4;
        end
        if (type_d == kite_pkg::RSS_HASH_TYPE_IPV4) begin
          in_d[IN_W-1 -: 64] = {s_src_ip_i[31:0], s_dst_ip_i[31:0]};
        end else if (type_d != kite_pkg::RSS_HASH_TYPE_NONE) begin
          in_d[IN_W-1 -: 96] = {s_src_ip_i[31:0], s_dst_ip_i[31:0], s_sport_i, s_dport_i};
        end
      end
      kite_rtl_pkg::L3_IPV6: begin
        if (s_l4_i == kite_rtl_pkg::L4_TCP && fields_d[4]) begin
          type_d = kite_pkg::RSS_HASH_TYPE_IPV6_TCP;
        end else if (s_l4_i == kite_rtl_pkg::L4_UDP && fields_d[5]) begin
          type_d = kite_pkg::RSS_HASH_TYPE_IPV6_UDP;
        end else if (fields_d[3]) begin
          type_d = kite_pkg::RSS_HASH_TYPE_IPV6;
        end
        if (type_d == kite_pkg::RSS_HASH_TYPE_IPV6) begin
          in_d[IN_W-1 -: 256] = {s_src_ip_i, s_dst_ip_i};
        end else if (type_d != kite_pkg::RSS_HASH_TYPE_NONE) begin
          in_d = {s_src_ip_i, s_dst_ip_i, s_sport_i, s_dport_i};
        end
      end
      default: ;
    endcase
  end

  logic [IN_W-1:0]  in0_q;
  logic [7:0]       type0_q, type1_q, type2_q, type3_q;
  logic [TAG_W-1:0] tag0_q, tag1_q, tag2_q, tag3_q;
  logic [CTX_W-1:0] ctx0_q, ctx1_q, ctx2_q;

  // Keys: key0_q[KEY_W-1 -: 8] is key byte 0 of the tuple's context; the
  // Toeplitz window for input bit i (counted from the first wire bit) is
  // key0_q[KEY_W-1-i -: 32]. One RAM per 32-bit word, so a config write is
  // a plain word write.
  logic [KEY_W-1:0] key0_q;
  for (genvar w = 0; w < 10; w++) begin : g_key
    logic [31:0] key_mem [NCTX];
    always_ff @(posedge clk_i) begin
      if (cfg_we_i && cfg_addr_i == 9'(w) && 32'(cfg_ctx_i) < NCTX) begin
        key_mem[cfg_ctx_i] <= {cfg_wdata_i[7:0], cfg_wdata_i[15:8], cfg_wdata_i[23:16], cfg_wdata_i[31:24]};
      end
    end
    always_ff @(posedge clk_i) begin
      if (en) key0_q[KEY_W-1-32*w -: 32] <= key_mem[s_ctx_i];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      v0_q <= 1'b0;
    end else if (en) begin
      v0_q <= s_valid_i;
    end
  end

  always_ff @(posedge clk_i) begin
    if (en) begin
      in0_q   <= in_d;
      type0_q <= type_d;
      tag0_q  <= s_tag_i;
      ctx0_q  <= s_ctx_i;
    end
  end

  // ---------------------------------------------------------------- stage 1
  // Toeplitz: hash = XOR over set input bits i of key window i. Split into
  // NCHUNK independent XOR trees so each stage is a few LUT levels deep.
  logic [NCHUNK*32-1:0] part_d;
  logic [NCHUNK*32-1:0] part1_q;

  always_comb begin
    for (int c = 0; c < NCHUNK; c++) begin
      part_d[c*32 +: 32] = '0;
      for (int j = 0; j < CHUNK; j++) begin
        if (in0_q[IN_W-1-(c*CHUNK+j)]) begin
          part_d[c*32 +: 32] = part_d[c*32 +: 32] ^ key0_q[KEY_W-1-(c*CHUNK+j) -: 32];
        end
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      v1_q <= 1'b0;
    end else if (en) begin
      v1_q <= v0_q;
    end
  end

  always_ff @(posedge clk_i) begin
    if (en) begin
      part1_q <= part_d;
      type1_q <= type0_q;
      tag1_q  <= tag0_q;
      ctx1_q  <= ctx0_q;
    end
  end

  // ---------------------------------------------------------------- stage 2
  logic [31:0] hash_d, hash2_q, hash3_q;

  always_comb begin
    hash_d = '0;
    for (int c = 0; c < NCHUNK; c++) hash_d = hash_d ^ part1_q[c*32 +: 32];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      v2_q <= 1'b0;
    end else if (en) begin
      v2_q <= v1_q;
    end
  end

  always_ff @(posedge clk_i) begin
    if (en) begin
      hash2_q <= hash_d;
      type2_q <= type1_q;
      tag2_q  <= tag1_q;
      ctx2_q  <= ctx1_q;
    end
  end

  // ---------------------------------------------------------------- stage 3
  // Synchronous table read; hash type NONE gives hash 0 and therefore table[0].
  logic [QN_W-1:0] queue3_q;
  logic [7:0]      slot2;
  assign slot2 = hash2_q[7:0] & mask_q[ctx2_q];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      v3_q <= 1'b0;
    end else if (en) begin
      v3_q <= v2_q;
    end
  end

  always_ff @(posedge clk_i) begin
    if (en) begin
      queue3_q <= table_q[{ctx2_q, slot2}];
      hash3_q  <= hash2_q;
      type3_q  <= type2_q;
      tag3_q   <= tag2_q;
    end
  end

  assign m_valid_o     = v3_q;
  assign m_hash_o      = hash3_q;
  assign m_hash_type_o = type3_q;
  assign m_queue_o     = queue3_q;
  assign m_tag_o       = tag3_q;

endmodule : kite_rss
