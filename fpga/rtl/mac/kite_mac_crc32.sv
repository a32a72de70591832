// Ethernet FCS (IEEE 802.3 CRC-32) over a 512-bit AXI-Stream, one beat per
// cycle, any frame length, back-to-back frames with no gap.
//
// Beats are packed from lane 0 (s_keep_i contiguous from bit 0); only the
// last beat of a frame may be partial. For each frame the block reports the
// CRC-32 of all its bytes (the FCS value to transmit, byte 0 in [7:0]), the
// frame length, and residue_ok: the frame ends in a correct FCS (the CRC over
// data + FCS equals the 802.3 residue). The same block serves TX (FCS
// generation) and RX (FCS check).
//
// Why this structure: at 250 MHz a 512-bit CRC step must not sit in a single
// feedback path. The data-only term G(data) is computed one stage early, so
// the loop is crc' = F64(crc) ^ G: a 32-input XOR per bit. The last, partial
// beat leaves the loop and is finished by a pipelined binary tail (32, 16, 8,
// 4, 2, 1 bytes) while the loop already starts the next frame.
module kite_mac_crc32 #(
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
  output logic [31:0]         m_crc_o,
  output logic [LEN_W-1:0]    m_len_o,
  output logic                m_residue_ok_o
);

  localparam int unsigned NB    = DATA_W / 8;      // bytes per beat (64)
  localparam int unsigned CNT_W = $clog2(NB) + 1;  // 1..64
  localparam int unsigned NT    = $clog2(NB);      // tail stages: 32,16,8,4,2,1
  localparam logic [31:0] POLY  = 32'hedb88320;    // reflected 0x04C11DB7
  localparam logic [31:0] RESIDUE = 32'h2144df1c;  // CRC-32 of any frame + its FCS

  // One global advance enable; only the output register can hold the pipeline.
  logic en, out_v_q;
  assign en        = !out_v_q || m_ready_i;
  assign s_ready_o = en;

  // The CRC is linear over GF(2): each result bit is the XOR of the input
  // bits its mask selects. The masks are computed at elaboration from the
  // bit-serial definition, so every result bit is written as one reduction
  // XOR, which synthesis builds as a balanced tree. (Written as the
  // bit-serial loop on the signals themselves, yosys kept the unrolled chain:
  // 170 logic levels from stage A to stage B.) One step (the state shifted
  // right, POLY added when bit 0 leaves) is written out where it is used,
  // not called: yosys evaluates constant functions on their syntax tree, and
  // a call per step made reading this file take a minute of CPU.
  //
  // Masks of the data term over data bits 0..n-1 (bit 0 first, the state
  // starting at 0): bit j's mask is at [DATA_W*j +: DATA_W]. Data bit i adds
  // POLY, advanced by the n-1-i steps that follow it. Each row is built in
  // its own variable: writing single bits of the whole result costs yosys
  // its full width each time.
  function automatic logic [32*DATA_W-1:0] data_masks(input int n);
    logic [31:0]       col;
    logic [DATA_W-1:0] row;
    for (int j = 0; j < 32; j++) begin
      row = '0;
      col = POLY;
      for (int i = n - 1; i >= 0; i--) begin
        row[i] = col[j];
        col = {1'b0, col[31:1]} ^ (col[0] ? POLY : 32'd0);
      end
      data_masks[DATA_W*j +: DATA_W] = row;
    end
  endfunction

  // Masks of the state term after n steps with no data: bit j's at [32*j +: 32].
  function automatic logic [32*32-1:0] state_masks(input int n);
    logic [31:0] col;
    state_masks = '0;
    for (int k = 0; k < 32; k++) begin
      col = 32'd1 << k;
      for (int i = 0; i < n; i++) col = {1'b0, col[31:1]} ^ (col[0] ? POLY : 32'd0);
      for (int j = 0; j < 32; j++) state_masks[32*j + k] = col[j];
    end
  endfunction

  function automatic logic [31:0] xor_data(input logic [32*DATA_W-1:0] m, input logic [DATA_W-1:0] d);
    for (int j = 0; j < 32; j++) xor_data[j] = ^(d & m[DATA_W*j +: DATA_W]);
  endfunction

  function automatic logic [31:0] xor_state(input logic [32*32-1:0] m, input logic [31:0] c);
    for (int j = 0; j < 32; j++) xor_state[j] = ^(c & m[32*j +: 32]);
  endfunction

  localparam logic [32*DATA_W-1:0] G_MASK = data_masks(DATA_W);   // a full beat's data
  localparam logic [32*32-1:0]     F_MASK = state_masks(DATA_W);  // a full beat's state

  function automatic logic [32*DATA_W-1:0] tail_masks(input int n);
    for (int j = 0; j < 32; j++) tail_masks[DATA_W*j +: DATA_W] = G_MASK[DATA_W*j +: DATA_W] >> (DATA_W - n);
  endfunction

  // ------------------------------------------------------------ stage A
  // Register the beat; count its bytes; mark the first beat of each frame.
  logic              a_v_q, a_last_q, a_first_q, in_frame_q;
  logic [DATA_W-1:0] a_data_q;
  logic [CNT_W-1:0]  a_n_q;
  logic [CNT_W-1:0]  keep_cnt;

  always_comb begin
    keep_cnt = '0;
    for (int i = 0; i < NB; i++) keep_cnt = keep_cnt + CNT_W'(s_keep_i[i]);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      a_v_q      <= 1'b0;
      in_frame_q <= 1'b0;
    end else if (en) begin
      a_v_q <= s_valid_i;
      if (s_valid_i) in_frame_q <= !s_last_i;
    end
  end

  always_ff @(posedge clk_i) begin
    if (en) begin
      a_data_q  <= s_data_i;
      a_n_q     <= keep_cnt;
      a_last_q  <= s_last_i;
      a_first_q <= !in_frame_q;
    end
  end

  // ------------------------------------------------------------ stage B
  // Precompute the data-only term of a full 64-byte step.
  logic              b_v_q, b_last_q, b_first_q;
  logic [DATA_W-1:0] b_data_q;
  logic [CNT_W-1:0]  b_n_q;
  logic [31:0]       b_g_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) b_v_q <= 1'b0;
    else if (en) b_v_q <= a_v_q;
  end

  always_ff @(posedge clk_i) begin
    if (en) begin
      b_data_q  <= a_data_q;
      b_n_q     <= a_n_q;
      b_last_q  <= a_last_q;
      b_first_q <= a_first_q;
      b_g_q     <= xor_data(G_MASK, a_data_q);
    end
  end

  // ------------------------------------------------------------ stage C
  // The loop: full beats update the accumulator; the last beat goes to the
  // tail with the state it starts from (finished here if it is full).
  logic [31:0]      acc_q, c_state;
  logic [LEN_W-1:0] len_q, c_len;
  logic [31:0]      c_full;

  assign c_state = b_first_q ? 32'hffffffff : acc_q;
  assign c_len   = (b_first_q ? '0 : len_q) + LEN_W'(b_n_q);
  assign c_full  = xor_state(F_MASK, c_state) ^ b_g_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      acc_q <= 32'hffffffff;
      len_q <= '0;
    end else if (en && b_v_q) begin
      acc_q <= c_full;
      len_q <= c_len;
    end
  end

  // Tail pipeline, stage k handles a chunk of NB >> (k+1) bytes. Index 0 is
  // the entry from stage C, index NT the finished result.
  logic [NT:0]            t_v;
  logic [32*(NT+1)-1:0]   t_state;
  // The last stage's data and count are consumed by construction (unused).
  /* verilator lint_off UNUSEDSIGNAL */
  logic [DATA_W*(NT+1)-1:0] t_data;
  logic [CNT_W*(NT+1)-1:0]  t_n;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [LEN_W*(NT+1)-1:0]  t_len;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) t_v[0] <= 1'b0;
    else if (en) t_v[0] <= b_v_q && b_last_q;
  end

  always_ff @(posedge clk_i) begin
    if (en) begin
      // A full last beat is complete already; a partial one starts the tail.
      t_state[0 +: 32]          <= b_n_q[CNT_W-1] ? c_full : c_state;
      t_data[0 +: DATA_W]       <= b_data_q;
      t_n[0 +: CNT_W]           <= b_n_q;
      t_len[0 +: LEN_W]         <= c_len;
    end
  end

  for (genvar k = 0; k < NT; k++) begin : g_tail
    localparam int unsigned CH = NB >> (k + 1);  // chunk bytes
    // The chunk's bit i is followed by as many steps as the full beat's
    // bit i + DATA_W - 8 * CH: its masks are the beat's, shifted down.
    localparam logic [32*DATA_W-1:0] TD_MASK = tail_masks(8 * CH);
    localparam logic [32*32-1:0]     TS_MASK = state_masks(8 * CH);
    logic [31:0]      st_in, st_out;
    logic [DATA_W-1:0] d_in;
    logic [CNT_W-1:0] n_in;
    logic             take;

    assign st_in = t_state[32*k +: 32];
    assign d_in  = t_data[DATA_W*k +: DATA_W];
    assign n_in  = t_n[CNT_W*k +: CNT_W];
    // n < 64 is consumed by its binary digits, high to low; a full beat
    // (n = 64) has none of them set and passes through finished.
    assign take  = n_in[$clog2(CH)];

    // The chunk is the low 8 * CH bits of d_in (TD_MASK is zero above them).
    assign st_out = xor_state(TS_MASK, st_in) ^ xor_data(TD_MASK, d_in);

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) t_v[k+1] <= 1'b0;
      else if (en) t_v[k+1] <= t_v[k];
    end

    always_ff @(posedge clk_i) begin
      if (en) begin
        t_state[32*(k+1) +: 32]          <= take ? st_out : st_in;
        t_data[DATA_W*(k+1) +: DATA_W]   <= take ? (d_in >> (8 * CH)) : d_in;
        t_n[CNT_W*(k+1) +: CNT_W]        <= take ? n_in - CNT_W'(CH) : n_in;
        t_len[LEN_W*(k+1) +: LEN_W]      <= t_len[LEN_W*k +: LEN_W];
      end
    end
  end

  // ------------------------------------------------------------ output
  logic [31:0]      out_crc_q;
  logic [LEN_W-1:0] out_len_q;
  logic             out_ok_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) out_v_q <= 1'b0;
    else if (en) out_v_q <= t_v[NT];
  end

  always_ff @(posedge clk_i) begin
    if (en) begin
      out_crc_q <= ~t_state[32*NT +: 32];
      out_ok_q  <= ~t_state[32*NT +: 32] == RESIDUE;
      out_len_q <= t_len[LEN_W*NT +: LEN_W];
    end
  end

  assign m_valid_o      = out_v_q;
  assign m_crc_o        = out_crc_q;
  assign m_len_o        = out_len_q;
  assign m_residue_ok_o = out_ok_q;

endmodule : kite_mac_crc32
