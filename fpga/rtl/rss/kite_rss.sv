// Toeplitz RSS engine: programmable 40-byte key, hash field selection and a
// 256-entry indirection table. Fully pipelined: accepts one flow tuple per
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
// Written in the SystemVerilog subset that both Verilator 5.006 and yosys 0.23
// accept (package items qualified, flat vectors, no `return`).
//
// Config port (register semantics, 32-bit writes):
//   addr 0..9     key bytes 4a..4a+3, byte 4a in wdata[7:0] (memory order)
//   addr 16       hash_fields (kite_pkg rss_field bits) in wdata[7:0]
//   addr 17       table_size in wdata[8:0]: 1, 2, 4, .. 256 (256 after reset;
//                 other values are ignored)
//   addr 256..511 indirection table entry (addr - 256) = wdata[QN_W-1:0]
module kite_rss #(
  parameter int unsigned QN_W  = 16,  // queue number width
  parameter int unsigned TAG_W = 16   // opaque per-request tag carried through
) (
  input  logic              clk_i,
  input  logic              rst_ni,

  input  logic              cfg_we_i,
  input  logic [8:0]        cfg_addr_i,
  input  logic [31:0]       cfg_wdata_i,

  // Flow tuple from the parser. IPv4 addresses in [31:0], network order as a
  // number (first wire byte in the MSBs); IPv6 uses all 128 bits.
  input  logic              s_valid_i,
  output logic              s_ready_o,
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
  // key_q[KEY_W-1 -: 8] is key byte 0: the Toeplitz window for input bit i
  // (counted from the first wire bit) is key_q[KEY_W-1-i -: 32].
  logic [KEY_W-1:0]  key_q;
  logic [5:0]        fields_q;  // rss_field bits 0..5
  logic [7:0]        mask_q;    // table_size - 1
  logic [QN_W-1:0]   table_q [0:255];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      key_q    <= '0;
      fields_q <= '0;
      mask_q   <= 8'hff;
    end else if (cfg_we_i && !cfg_addr_i[8]) begin
      // Constant part selects per word: a variable one costs a 320-bit shifter.
      for (int w = 0; w < 10; w++) begin
        if (cfg_addr_i == 9'(w)) begin
          for (int b = 0; b < 4; b++) key_q[KEY_W-1-8*(4*w+b) -: 8] <= cfg_wdata_i[8*b +: 8];
        end
      end
      if (cfg_addr_i == 9'd16) begin
        fields_q <= cfg_wdata_i[5:0];
      end
      if (cfg_addr_i == 9'd17 && cfg_wdata_i[31:9] == '0 && cfg_wdata_i[8:0] != '0 &&
          (cfg_wdata_i[8:0] & (cfg_wdata_i[8:0] - 9'd1)) == '0) begin
        mask_q <= 8'(cfg_wdata_i[8:0] - 9'd1);
      end
    end
  end

  // Indirection table: plain synchronous RAM (no reset) so it maps to LUTRAM/BRAM.
  always_ff @(posedge clk_i) begin
    if (cfg_we_i && cfg_addr_i[8]) table_q[cfg_addr_i[7:0]] <= cfg_wdata_i[QN_W-1:0];
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
  assign l3_d = s_malformed_i ? 2'(kite_rtl_pkg::L3_NONE) : s_l3_i;

  always_comb begin
    type_d = kite_pkg::RSS_HASH_TYPE_NONE;
    in_d   = '0;
    unique case (l3_d)
      kite_rtl_pkg::L3_IPV4: begin
        if (s_l4_i == kite_rtl_pkg::L4_TCP && fields_q[1]) begin
          type_d = kite_pkg::RSS_HASH_TYPE_IPV4_TCP;
        end else if (s_l4_i == kite_rtl_pkg::L4_UDP && fields_q[2]) begin
          type_d = kite_pkg::RSS_HASH_TYPE_IPV4_UDP;
        end else if (fields_q[0]) begin
          type_d = kite_pkg::RSS_HASH_TYPE_IPV4;
        end
        if (type_d == kite_pkg::RSS_HASH_TYPE_IPV4) begin
          in_d[IN_W-1 -: 64] = {s_src_ip_i[31:0], s_dst_ip_i[31:0]};
        end else if (type_d != kite_pkg::RSS_HASH_TYPE_NONE) begin
          in_d[IN_W-1 -: 96] = {s_src_ip_i[31:0], s_dst_ip_i[31:0], s_sport_i, s_dport_i};
        end
      end
      kite_rtl_pkg::L3_IPV6: begin
        if (s_l4_i == kite_rtl_pkg::L4_TCP && fields_q[4]) begin
          type_d = kite_pkg::RSS_HASH_TYPE_IPV6_TCP;
        end else if (s_l4_i == kite_rtl_pkg::L4_UDP && fields_q[5]) begin
          type_d = kite_pkg::RSS_HASH_TYPE_IPV6_UDP;
        end else if (fields_q[3]) begin
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
          part_d[c*32 +: 32] = part_d[c*32 +: 32] ^ key_q[KEY_W-1-(c*CHUNK+j) -: 32];
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
    end
  end

  // ---------------------------------------------------------------- stage 3
  // Synchronous table read; hash type NONE gives hash 0 and therefore table[0].
  logic [QN_W-1:0] queue3_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      v3_q <= 1'b0;
    end else if (en) begin
      v3_q <= v2_q;
    end
  end

  always_ff @(posedge clk_i) begin
    if (en) begin
      queue3_q <= table_q[hash2_q[7:0] & mask_q];
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
