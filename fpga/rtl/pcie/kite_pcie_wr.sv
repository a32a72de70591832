// DMA write engine on the UltraScale+ PCIe requester request interface
// (PG213, 512-bit, straddle off, DWORD-aligned mode).
//
// A write request (id, 64-bit address, length) is followed by its data as
// address-aligned words (byte lane i holds an address = i mod 64, the first
// word at the request address rounded down to 64 bytes, exactly
// ceil((addr mod 64 + len) / 64) words, no last flag). It is split into
// memory write TLPs at MPS-aligned addresses (MPS divides 4 KiB, so no TLP
// crosses a 4 KiB boundary). A TLP is a 4-DW descriptor followed by the
// payload from DW 4 of the first beat; the data is shifted into place by a
// two-word window (the held word and the incoming one), so the engine
// streams one beat per cycle with one extra beat per TLP only when the
// descriptor pushes the payload over a beat boundary.
//
// wr_done_o pulses when the last beat of the request's last TLP is handed
// to the core (posted: no completion exists); a later read of the same
// address, issued after wr_done_o, sees the data (PCIe keeps reads behind
// earlier posted writes). A request of length 0 consumes no data and
// completes at once with wr_done_err_o (cnt_zero_len_o).
module kite_pcie_wr #(
  parameter int unsigned MPS   = 256,  // max payload size, bytes (64..4096, power of 2)
  parameter int unsigned ID_W  = 8,
  parameter int unsigned LEN_W = 16
) (
  input  logic             clk_i,
  input  logic             rst_ni,

  input  logic             wr_req_valid_i,
  output logic             wr_req_ready_o,
  input  logic [ID_W-1:0]  wr_req_id_i,
  input  logic [63:0]      wr_req_addr_i,
  input  logic [LEN_W-1:0] wr_req_len_i,

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

  assign room    = (PW+1)'(MPS) - {1'b0, addr_q[PW-1:0]};
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

  logic         priming;
  logic [511:0] in_w, out_w;
  logic [1023:0] win;
  logic [127:0] desc;

  assign priming   = busy_q && neg && !primed_q;
  assign need_in   = (beat_q + {6'd0, neg}) < nw;
  assign in_w      = need_in ? wr_data_i : '0;
  assign win       = {in_w, hold_q} << {shp, 3'b000};
  assign out_w     = win[1023:512];
  assign last_beat = beat_q == nb - 7'd1;
  // PG213 Requester Request Descriptor (see kite_pcie_rd), type 0001
  // memory write; the tag is unused for posted requests.
  assign desc      = {1'b0, 3'b000, 3'b000, 1'b0, 16'h0000, 8'h00,
                      16'h0000, 1'b0, 4'b0001, dw, addr_q[63:2], 2'b00};

  assign rq_valid_o    = busy_q && !priming && (!need_in || wr_data_valid_i);
  assign rq_data_o     = beat_q == '0 ? {out_w[511:128], desc} : out_w;
  assign rq_sop_o      = beat_q == '0;
  assign rq_last_o     = last_beat;
  assign rq_eop_ptr_o  = 4'(dw_tot - 13'd1);
  assign rq_keep_o     = last_beat ? (16'hffff >> (4'd15 - rq_eop_ptr_o)) : 16'hffff;
  assign rq_first_be_o = fbe;
  assign rq_last_be_o  = lbe;
  assign fire          = rq_valid_o && rq_ready_i;
  assign wr_data_ready_o = priming || (busy_q && need_in && rq_ready_i);
  assign wr_req_ready_o  = !busy_q;
  assign cnt_zero_len_o  = cnt_zero_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q        <= 1'b0;
      primed_q      <= 1'b0;
      addr_q        <= '0;
      rem_q         <= '0;
      id_q          <= '0;
      beat_q        <= '0;
      hold_q        <= '0;
      wr_done_o     <= 1'b0;
      wr_done_id_o  <= '0;
      wr_done_err_o <= 1'b0;
      cnt_zero_q    <= '0;
    end else begin
      wr_done_o <= 1'b0;
      if (!busy_q && wr_req_valid_i) begin
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
        end
      end
      if (priming && wr_data_valid_i) begin
        hold_q   <= wr_data_i;
        primed_q <= 1'b1;
      end
      if (fire) begin
        if (need_in) hold_q <= wr_data_i;
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
    end
  end

  logic unused_wr;
  assign unused_wr = ^{end_lo[5:2], win[511:0], dw_sum[1:0]};

endmodule : kite_pcie_wr
