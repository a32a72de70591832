// DMA write engine on the UltraScale+ PCIe requester request interface
// (PG213, 512-bit, straddle off, DWORD-aligned mode).
//
// A write request (id, 64-bit address, length) is followed by its data as
// address-aligned words (byte lane i holds an address = i mod 64, the first
// word at the request address rounded down to 64 bytes, exactly
// ceil((addr mod 64 + len) / 64) words, no last flag; words may be offered
// before their request is taken). It is split into
// memory write TLPs at addresses aligned to the negotiated payload size (at
// most MPS; it divides 4 KiB, so no TLP crosses a 4 KiB boundary). A TLP is a 4-DW descriptor followed by the
// payload from DW 4 of the first beat; the data is shifted into place by a
// two-word window (the held word and the incoming one), so the engine
// streams one beat per cycle with one extra beat per TLP only when the
// descriptor pushes the payload over a beat boundary. A TLP starts only once
// all of its data words are buffered, so RQ tvalid never drops inside it.
//
// wr_done_o pulses when the last beat of the request's last TLP is handed
// to the core (posted: no completion exists); a later read of the same
// address, issued after wr_done_o, sees the data (PCIe keeps reads behind
// earlier posted writes). A request of length 0 consumes no data and
// completes at once with wr_done_err_o (cnt_zero_len_o).
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

  // RQ beats of the current TLP.
  output logic             rq_valid_o,
  input  logic             rq_ready_i,
  output logic [511:0]     rq_data_o,
  output logic [15:0]      rq_keep_o,
  output logic             rq_sop_o,
  output logic             rq_last_o,
  output logic [3:0]       rq_eop_ptr_o,
  output logic [3:0]       rq_first_be_o,
  output logic [3:0]       rq_last_be_o,

  output logic [31:0]      cnt_zero_len_o
);

  localparam int unsigned PW = $clog2(MPS);

  logic             busy_q, primed_q;
  logic [63:0]      addr_q;
  logic [LEN_W-1:0] rem_q;
  logic [ID_W-1:0]  id_q;
  logic [7:0]       fn_q;
  logic [6:0]       beat_q;
  logic [511:0]     hold_q;
  logic [31:0]      cnt_zero_q;

  // The current TLP, from the address and bytes left.
  logic [PW:0]   room, chunk;
  logic [PW+1:0] dw_sum;
  logic [10:0]   dw;
  logic [12:0]   dw_tot;        // descriptor + payload DWs
  logic [6:0]    nb, nw;        // RQ beats, client words
  logic [PW+1:0] nw_sum;
  logic [5:0]    end_lo, shp;
  logic          neg, is_last, need_in, fire, last_beat;
  logic [3:0]    fbe, lbe;

  logic [PW:0]  mps_eff;
  logic [15:0]  mps_cfg;
  assign mps_cfg = 16'd128 << cfg_max_payload_i;
  assign mps_eff = mps_cfg > 16'(MPS) ? (PW+1)'(MPS) : mps_cfg[PW:0];
  assign room    = mps_eff - {1'b0, addr_q[PW-1:0] & (mps_eff[PW-1:0] - PW'(1))};
  assign chunk   = (rem_q < LEN_W'(room)) ? rem_q[PW:0] : room;
  assign is_last = rem_q <= LEN_W'(chunk);
  assign dw_sum  = {{PW{1'b0}}, addr_q[1:0]} + {1'b0, chunk} + (PW+2)'(3);
  assign dw      = 11'(dw_sum[PW+1:2]);
  assign dw_tot  = 13'd4 + {2'b00, dw};
  assign nb      = 7'((dw_tot + 13'd15) >> 4);
  assign nw_sum  = (PW+2)'(addr_q[5:0]) + {1'b0, chunk} + (PW+2)'(63);
  assign nw      = 7'(nw_sum >> 6);
  assign end_lo  = addr_q[5:0] + chunk[5:0] - 6'd1;
  // Client byte at lane a (mod 64) goes to lane 16 + (a - addr[5:2]*4): when
  // that is negative the first beat needs the first two words.
  assign neg     = addr_q[5:0] >= 6'd20;
  assign shp     = 6'd16 - {addr_q[5:2], 2'b00};
  always_comb begin
    fbe = 4'hf << addr_q[1:0];
    lbe = 4'hf >> (2'd3 - end_lo[1:0]);
    if (dw == 11'd1) begin
      fbe = fbe & lbe;
      lbe = 4'h0;
    end
  end

  // Data FIFO: PG213 wants s_axis_rq_tvalid held through a TLP, so a TLP
  // starts only when all of its words are here; two TLPs' worth keeps the
  // stream going while the next one fills.
  localparam int unsigned FD = 1 << $clog2(2 * (MPS / 64 + 1));
  localparam int unsigned FW = $clog2(FD);
  logic [511:0] fifo_q [FD];
  logic [FW-1:0] f_wp_q, f_rp_q;
  logic [FW:0]   f_cnt_q;
  logic          f_push, f_pop, go;
  logic [511:0]  f_head;

  assign f_head          = fifo_q[f_rp_q];
  assign wr_data_ready_o = f_cnt_q != (FW+1)'(FD);
  assign f_push          = wr_data_valid_i && wr_data_ready_o;

  always_ff @(posedge clk_i) begin
    if (f_push) fifo_q[f_wp_q] <= wr_data_i;
  end

  logic         priming;
  logic [511:0] in_w, out_w;
  logic [1023:0] win;
  logic [127:0] desc;

  assign go        = beat_q != '0 || primed_q || f_cnt_q >= (FW+1)'(nw);
  assign priming   = busy_q && go && neg && !primed_q;
  assign need_in   = (beat_q + {6'd0, neg}) < nw;
  assign in_w      = need_in ? f_head : '0;
  assign win       = {in_w, hold_q} << {shp, 3'b000};
  assign out_w     = win[1023:512];
  assign last_beat = beat_q == nb - 7'd1;
  // PG213 Requester Request Descriptor (see kite_pcie_rd), type 0001
  // memory write, the requesting function in [87:80]; the tag is unused for
  // posted requests.
  assign desc      = {1'b0, 3'b000, 3'b000, 1'b0, 16'h0000, 8'h00,
                      8'h00, fn_q, 1'b0, 4'b0001, dw, addr_q[63:2], 2'b00};

  assign rq_valid_o    = busy_q && go && !priming;
  assign rq_data_o     = beat_q == '0 ? {out_w[511:128], desc} : out_w;
  assign rq_sop_o      = beat_q == '0;
  assign rq_last_o     = last_beat;
  assign rq_eop_ptr_o  = 4'(dw_tot - 13'd1);
  assign rq_keep_o     = last_beat ? (16'hffff >> (4'd15 - rq_eop_ptr_o)) : 16'hffff;
  assign rq_first_be_o = fbe;
  assign rq_last_be_o  = lbe;
  assign fire          = rq_valid_o && rq_ready_i;
  assign f_pop         = priming || (fire && need_in);
  // A zero-length request would pulse wr_done_o in the same cycle as the
  // previous request's, so it waits for an idle cycle.
  assign wr_req_ready_o  = !busy_q || (fire && last_beat && is_last && wr_req_len_i != '0);
  assign cnt_zero_len_o  = cnt_zero_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q        <= 1'b0;
      primed_q      <= 1'b0;
      addr_q        <= '0;
      rem_q         <= '0;
      id_q          <= '0;
      fn_q          <= '0;
      beat_q        <= '0;
      hold_q        <= '0;
      f_wp_q        <= '0;
      f_rp_q        <= '0;
      f_cnt_q       <= '0;
      wr_done_o     <= 1'b0;
      wr_done_id_o  <= '0;
      wr_done_err_o <= 1'b0;
      cnt_zero_q    <= '0;
    end else begin
      wr_done_o <= 1'b0;
      f_wp_q  <= f_wp_q + FW'(f_push);
      f_rp_q  <= f_rp_q + FW'(f_pop);
      f_cnt_q <= f_cnt_q + (FW+1)'(f_push) - (FW+1)'(f_pop);
      if (priming) begin
        hold_q   <= f_head;
        primed_q <= 1'b1;
      end
      if (fire) begin
        if (need_in) hold_q <= f_head;
        if (last_beat) begin
          beat_q   <= '0;
          primed_q <= 1'b0;
          addr_q   <= addr_q + 64'(chunk);
          rem_q    <= rem_q - LEN_W'(chunk);
          if (is_last) begin
            busy_q        <= 1'b0;
            wr_done_o     <= 1'b1;
            wr_done_id_o  <= id_q;
            wr_done_err_o <= 1'b0;
          end
        end else begin
          beat_q <= beat_q + 7'd1;
        end
      end
      // After the fire block: a request taken in the cycle of the previous
      // one's last beat starts at once.
      if (wr_req_valid_i && wr_req_ready_o) begin
        if (wr_req_len_i == '0) begin
          wr_done_o     <= 1'b1;
          wr_done_id_o  <= wr_req_id_i;
          wr_done_err_o <= 1'b1;
          cnt_zero_q    <= cnt_zero_q + 32'd1;
        end else begin
          busy_q   <= 1'b1;
          primed_q <= 1'b0;
          beat_q   <= '0;
          addr_q   <= wr_req_addr_i;
          rem_q    <= wr_req_len_i;
          id_q     <= wr_req_id_i;
          fn_q     <= wr_req_fn_i;
        end
      end
    end
  end

  logic unused_wr;
  assign unused_wr = ^{end_lo[5:2], win[511:0], dw_sum[1:0]};

endmodule : kite_pcie_wr
