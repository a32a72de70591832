// The board's configuration flash for the control CPU's firmware: its
// flash update (FLASH_BEGIN / WRITE / COMMIT, firmware/src/fw.cpp) keeps a
// control block and two image banks there. The Alveo U250 carries a Micron
// MT25QU01G (1 Gb, 1.8 V, quad SPI NOR: UG1289 "Quad SPI Flash Memory";
// Vivado's part mt25qu01g-spi-x1_x2_x4); the bitstreams live in its low
// part, the firmware owns the top 8 MiB (FLASH_WIN_*).
//
// Registers: FLASH_* in kite_cpu_io's window (fpga/spec group cpu_io,
// kite_cpu_io_pkg), which forwards its 0x400..0x5ff here. The window and
// not a region of kite_cpu_sys's map: it is the firmware's one generated
// register map (offsets from fpga/spec, never copied), its rules are the
// ones this block needs (word registers answered the next cycle, access
// faults for what is not there), and kite_cpu_sys, link.ld and the ISS
// that checks the CPU keep their memory map.
//
// Operations, not bytes: the CPU writes FLASH_ADDR, FLASH_LEN (and
// FLASH_BUF for a program), then FLASH_CMD; the block runs the sequence
// and FLASH_STATUS reads busy until it is over, then its error:
//   every op  READ FLAG STATUS (70h) until bit 7 (ready) twice in a row
//             (a stacked part may answer die by die; one die repeats
//             itself), so nothing starts on a busy flash; error bits an
//             earlier operation left (one that timed out) are cleared
//   READ      4-BYTE READ (13h): FLASH_LEN bytes into FLASH_BUF
//   ID        READ ID (9Fh): FLASH_LEN bytes into FLASH_BUF
//   PROGRAM   WRITE ENABLE (06h); READ STATUS (05h) must show WEL (bit 1),
//             else nothing is sent; 4-BYTE PAGE PROGRAM (12h) of FLASH_BUF;
//             flag status until ready; its erase, program or protection
//             bits (5, 4, 1) set: CLEAR FLAG STATUS (50h) and FAIL
//   ERASE     the same with 4-BYTE 4KB SUBSECTOR ERASE (21h)
// The 4-byte-address commands depend neither on the flash's address mode
// nor on its extended address register, whatever configuration left there.
// Refused before anything is sent (FLASH_ERR_RANGE): FLASH_LEN outside
// 1..256; a READ beyond the device; a PROGRAM or ERASE outside the
// firmware's window (the bitstreams cannot be written from here); a
// PROGRAM across a 256-byte page (the part would wrap to the page's start
// and program bytes the firmware did not mean); an ERASE not 4 KiB aligned.
// A flash that never gets ready cannot hang the firmware: FLASH_TIMEOUT
// bounds each operation's waits (FLASH_ERR_TIMEOUT) and FLASH_OP_ABORT
// ends one at once (CS# rises within an SCK period). Bad accesses are
// access faults: an offset that is no register, a write to FLASH_STATUS, a
// register write of less than a word, FLASH_BUF while busy, FLASH_CMD
// while busy with anything but ABORT.
//
// Pins: single-bit SPI, mode 0 (SCK idles low; out on its falling edge, in
// on its rising edge); DQ0 out, DQ1 in, DQ2 (W#) and DQ3 (HOLD# / RESET#)
// driven high. x1 rather than x4: an update's time is the part's (0.12 ms
// typical per 256-byte page program, 50 ms per 4 KiB erase); x1 moves a
// page in 67 us at 31 MHz and needs no quad enable bit or dummy-cycle
// setting in the part's configuration registers, which belong to the
// bitstream's loader. On UltraScale+ these pins are reached through
// STARTUPE3 (USRCCLKO, FCSBO, DO / DTS / DI), which kite_top instantiates;
// the first three USRCCLKO cycles after the end of startup are not output
// (UG570), so after reset the block gives WARM clock pulses with CS# high.
// Timing: SCK is clk / (2 SCK_DIV) (31.25 MHz at 250 MHz); CS# stays high
// CS_GAP cycles between commands (tSHSL: 50 ns after a write command); DQ1
// is taken in the last cycle of SCK's high half, 2 SCK_DIV - 1 cycles
// (28 ns) after the falling edge that launched it, so the way out, the
// part's clock-to-output time and the way back have that long, not half
// a period.
module kite_flash #(
  parameter int unsigned CLK_MHZ = 250,     // for FLASH_TIMEOUT's microseconds
  parameter int unsigned SCK_DIV = 4,       // cycles per SCK half period, >= 2
  parameter int unsigned CS_GAP  = 16,      // cycles of CS# high between commands
  parameter int unsigned WARM    = 8        // SCK pulses after reset, CS# high
) (
  input  logic        clk_i,
  input  logic        rst_ni,

  // Register accesses from kite_cpu_io (its FLASH_REGS part), answered the
  // cycle after the request.
  input  logic        req_i,
  input  logic        we_i,
  input  logic [15:0] addr_i,          // window offset, word aligned
  input  logic [3:0]  be_i,
  input  logic [31:0] wdata_i,
  output logic        err_o,
  output logic [31:0] rdata_o,

  // The flash (STARTUPE3 on the board: DTS = ~dq_oe_o).
  output logic        sck_o,
  output logic        cs_no,
  output logic [3:0]  dq_o,
  output logic [3:0]  dq_oe_o,
  input  logic [3:0]  dq_i
);
  localparam logic [32:0] WIN_LO = 33'(kite_cpu_io_pkg::FLASH_WIN_BASE);
  localparam logic [32:0] WIN_HI = 33'(kite_cpu_io_pkg::FLASH_WIN_BASE + kite_cpu_io_pkg::FLASH_WIN_SIZE);
  localparam logic [32:0] DEV_HI = 33'(kite_cpu_io_pkg::FLASH_DEV_SIZE);
  localparam logic [3:0]  OP_READ  = 4'(kite_cpu_io_pkg::FLASH_OP_READ);
  localparam logic [3:0]  OP_PROG  = 4'(kite_cpu_io_pkg::FLASH_OP_PROGRAM);
  localparam logic [3:0]  OP_ERASE = 4'(kite_cpu_io_pkg::FLASH_OP_ERASE);
  localparam logic [3:0]  OP_ID    = 4'(kite_cpu_io_pkg::FLASH_OP_ID);
  localparam logic [3:0]  OP_ABORT = 4'(kite_cpu_io_pkg::FLASH_OP_ABORT);
  localparam logic [3:0]  E_NONE   = 4'(kite_cpu_io_pkg::FLASH_ERR_NONE);
  localparam logic [3:0]  E_OP     = 4'(kite_cpu_io_pkg::FLASH_ERR_OP);
  localparam logic [3:0]  E_RANGE  = 4'(kite_cpu_io_pkg::FLASH_ERR_RANGE);
  localparam logic [3:0]  E_TIME   = 4'(kite_cpu_io_pkg::FLASH_ERR_TIMEOUT);
  localparam logic [3:0]  E_WEL    = 4'(kite_cpu_io_pkg::FLASH_ERR_WEL);
  localparam logic [3:0]  E_FAIL   = 4'(kite_cpu_io_pkg::FLASH_ERR_FAIL);
  localparam logic [3:0]  E_ABORT  = 4'(kite_cpu_io_pkg::FLASH_ERR_ABORT);
  // MT25Q commands.
  localparam logic [7:0]  C_WREN = 8'h06, C_RDSR = 8'h05, C_RDFSR = 8'h70, C_CLFSR = 8'h50;
  localparam logic [7:0]  C_READ4 = 8'h13, C_PP4 = 8'h12, C_SSE4 = 8'h21, C_RDID = 8'h9f;
  localparam logic [7:0]  FSR_ERR = 8'h32;  // erase, program, protection
  localparam int unsigned HW = $clog2(SCK_DIV), GW = $clog2(CS_GAP + 1), WW = $clog2(2 * WARM + 1);
  localparam int unsigned PW = $clog2(CLK_MHZ);

  // ---------------------------------------------------------------- registers
  logic [31:0] addr_q, len_q, tmo_q;          // as the CPU wrote them
  logic [3:0]  op_q, err_q;                   // the last operation and its error
  logic [7:0]  stat_q;                        // the last status byte read
  logic        busy_q;
  logic [31:0] o_addr_q, o_tmo_q;             // the running operation's
  logic [8:0]  o_len_q;
  logic [31:0] us_q;                          // microseconds since it started
  logic [PW-1:0] pre_q;

  // ---------------------------------------------------------------- the operation
  typedef enum logic [2:0] {O_IDLE, O_POLL, O_CLR0, O_WREN, O_RDSR, O_CMD, O_POLL2, O_CLFS} ostate_e;
  ostate_e     o_q;
  logic        t_req_q;                       // a command for the flash is due
  logic        rdy_q;                         // one ready answer of the two
  logic [7:0]  ferr_q;                        // error bits of the final ready answers
  logic        t_start, t_done, abort, start;
  logic        pe;                            // program or erase
  assign pe = op_q == OP_PROG || op_q == OP_ERASE;

  // What the next command is: its byte, header length (command + address),
  // data bytes, and whether they go out (program) or come in.
  logic [7:0]  t_cmd;
  logic [8:0]  t_hdr, t_n;                    // t_n: all bytes of the command
  logic        t_out, t_to_buf;
  always_comb begin
    t_cmd = C_RDFSR; t_hdr = 9'd1; t_n = 9'd2; t_out = 1'b0; t_to_buf = 1'b0;
    unique case (o_q)
      O_WREN: begin t_cmd = C_WREN; t_n = 9'd1; end
      O_RDSR: t_cmd = C_RDSR;
      O_CLR0, O_CLFS: begin t_cmd = C_CLFSR; t_n = 9'd1; end
      O_CMD: begin
        unique case (op_q)
          OP_READ:  begin t_cmd = C_READ4; t_hdr = 9'd5; t_n = 9'd5 + o_len_q; t_to_buf = 1'b1; end
          OP_PROG:  begin t_cmd = C_PP4; t_hdr = 9'd5; t_n = 9'd5 + o_len_q; t_out = 1'b1; end
          OP_ERASE: begin t_cmd = C_SSE4; t_hdr = 9'd5; t_n = 9'd5; end
          default:  begin t_cmd = C_RDID; t_n = 9'd1 + o_len_q; t_to_buf = 1'b1; end
        endcase
      end
      default: ;                              // O_POLL, O_POLL2: READ FLAG STATUS, one byte
    endcase
  end

  // ---------------------------------------------------------------- the buffer
  // 64 words of LUT RAM; the CPU has it while idle, the shifter while busy.
  logic [31:0] buf_q [64];
  logic [5:0]  b_waddr;
  logic [3:0]  b_be;
  logic [31:0] b_wdata;
  logic        b_we, cpu_buf_we;
  logic [7:0]  rx_byte, eng_byte;
  logic [7:0]  b_ridx;                        // the shifter's read byte
  logic [8:0]  byte_q;
  logic [7:0]  b_widx;
  logic        rx_store;
  assign b_widx = 8'(byte_q - t_hdr);
  always_comb begin
    if (busy_q) begin
      b_we = rx_store && t_to_buf; b_waddr = b_widx[7:2]; b_be = 4'b0001 << b_widx[1:0];
      b_wdata = {4{rx_byte}};
    end else begin
      b_we = cpu_buf_we; b_waddr = addr_i[7:2]; b_be = be_i; b_wdata = wdata_i;
    end
  end
  always_ff @(posedge clk_i) begin
    if (b_we)
      for (int j = 0; j < 4; j++)
        if (b_be[j]) buf_q[b_waddr][8*j +: 8] <= b_wdata[8*j +: 8];
  end
  assign eng_byte = buf_q[b_ridx[7:2]][8*b_ridx[1:0] +: 8];

  // ---------------------------------------------------------------- the shifter
  // One command per CS# low: t_n bytes, MSB first; bytes from t_hdr on are
  // data (sent from the buffer, or taken into the buffer or stat_q).
  typedef enum logic [1:0] {T_IDLE, T_LO, T_HI, T_END} tstate_e;
  tstate_e      t_q;
  logic [HW-1:0] half_q;
  logic [2:0]   bit_q;
  logic [7:0]   sh_q;
  logic [6:0]   rx_q;
  logic         sck_q, cs_q, mosi_q;
  logic [GW-1:0] gap_q;
  logic [WW-1:0] warm_q;                      // SCK half periods of the warm-up left
  logic         half_end;
  logic         t_dead_q;                     // an aborted command ending: no t_done
  logic [8:0]   nb;                           // the byte tx_next is
  logic [7:0]   tx_next;

  assign half_end = half_q == HW'(SCK_DIV - 1);
  assign rx_byte  = {rx_q, dq_i[1]};
  assign rx_store = t_q == T_HI && half_end && bit_q == 3'd7 && byte_q >= t_hdr && !t_out && !t_dead_q;
  assign t_start  = t_q == T_IDLE && t_req_q && gap_q == '0 && warm_q == '0 && !abort;
  assign t_done   = t_q == T_END && half_end && !abort && !t_dead_q;
  assign nb       = t_q == T_IDLE ? 9'd0 : byte_q + 9'd1;
  assign b_ridx   = 8'(nb - t_hdr);
  always_comb begin
    unique case (nb)
      9'd0:    tx_next = t_cmd;
      9'd1:    tx_next = t_hdr == 9'd5 ? o_addr_q[31:24] : 8'h00;
      9'd2:    tx_next = t_hdr == 9'd5 ? o_addr_q[23:16] : 8'h00;
      9'd3:    tx_next = t_hdr == 9'd5 ? o_addr_q[15:8]  : 8'h00;
      9'd4:    tx_next = t_hdr == 9'd5 ? o_addr_q[7:0]   : 8'h00;
      default: tx_next = 8'h00;
    endcase
    if (nb >= t_hdr && t_out) tx_next = eng_byte;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      t_q <= T_IDLE; half_q <= '0; bit_q <= '0; byte_q <= '0; sh_q <= '0; rx_q <= '0;
      sck_q <= 1'b0; cs_q <= 1'b1; mosi_q <= 1'b0; gap_q <= '0; warm_q <= WW'(2 * WARM);
      t_dead_q <= 1'b0;
    end else begin
      if (gap_q != '0) gap_q <= gap_q - 1'b1;
      if (warm_q != '0) begin
        half_q <= half_end ? '0 : half_q + 1'b1;
        if (half_end) begin sck_q <= !sck_q; warm_q <= warm_q - 1'b1; end
      end else if (abort) begin
        // The command ends as a command does: SCK's high half runs out,
        // then CS# rises half a period after SCK fell (T_END), so CS#
        // never moves while SCK is high and no SCK pulse is cut short. A
        // program cut short is not executed (CS# not at a byte's end).
        if (!cs_q) t_dead_q <= 1'b1;
        if (t_q == T_LO) begin half_q <= '0; t_q <= T_END; end
      end else begin
        unique case (t_q)
          T_IDLE:
            if (t_start) begin
              cs_q <= 1'b0; byte_q <= '0; bit_q <= '0; half_q <= '0;
              mosi_q <= tx_next[7]; sh_q <= {tx_next[6:0], 1'b0};
              t_q <= T_LO;
            end
          T_LO:
            if (half_end) begin half_q <= '0; sck_q <= 1'b1; t_q <= T_HI; end
            else half_q <= half_q + 1'b1;
          T_HI:
            if (half_end) begin
              half_q <= '0; sck_q <= 1'b0; rx_q <= rx_byte[6:0];
              if (t_dead_q) begin
                t_q <= T_END;
              end else if (bit_q != 3'd7) begin
                bit_q <= bit_q + 1'b1; mosi_q <= sh_q[7]; sh_q <= {sh_q[6:0], 1'b0}; t_q <= T_LO;
              end else if (byte_q == t_n - 9'd1) begin
                t_q <= T_END;
              end else begin
                byte_q <= byte_q + 9'd1; bit_q <= '0;
                mosi_q <= tx_next[7]; sh_q <= {tx_next[6:0], 1'b0}; t_q <= T_LO;
              end
            end else begin
              half_q <= half_q + 1'b1;
            end
          T_END:                              // CS# rises half a period after SCK fell
            if (half_end) begin
              half_q <= '0; cs_q <= 1'b1; gap_q <= GW'(CS_GAP); t_q <= T_IDLE; t_dead_q <= 1'b0;
            end
            else half_q <= half_q + 1'b1;
          default: t_q <= T_IDLE;
        endcase
      end
    end
  end

  assign sck_o   = sck_q;
  assign cs_no   = cs_q;
  assign dq_o    = {1'b1, 1'b1, 1'b0, mosi_q};  // HOLD#, W# high
  assign dq_oe_o = 4'b1101;                     // DQ1 is the flash's
  logic unused_dq;
  assign unused_dq = ^{dq_i[3:2], dq_i[0]};

  // ---------------------------------------------------------------- the CPU's accesses
  logic in_buf, full, wr, acc_err;
  logic [3:0] cmd_op;
  logic       cmd_known, range_ok, len_ok;
  logic [32:0] a_end;
  assign in_buf = addr_i[15:8] == 8'(kite_cpu_io_pkg::FLASH_BUF >> 8);
  assign full   = be_i == 4'hf;
  assign wr     = req_i && we_i && !acc_err;
  assign cmd_op = wdata_i[3:0];
  assign cmd_known = wdata_i[31:4] == '0 &&
                     (cmd_op == OP_READ || cmd_op == OP_PROG || cmd_op == OP_ERASE || cmd_op == OP_ID);
  assign len_ok = len_q != '0 && len_q <= 32'(kite_cpu_io_pkg::FLASH_BUF_SIZE);
  assign a_end  = {1'b0, addr_q} + {24'h0, len_q[8:0]};
  always_comb begin
    unique case (cmd_op)
      OP_READ:  range_ok = len_ok && a_end <= DEV_HI;
      OP_PROG:  range_ok = len_ok && {1'b0, addr_q} >= WIN_LO && a_end <= WIN_HI &&
                           {1'b0, addr_q[7:0]} + len_q[8:0] <= 9'd256;
      OP_ERASE: range_ok = {1'b0, addr_q} >= WIN_LO && {1'b0, addr_q} < WIN_HI && addr_q[11:0] == 12'h0;
      default:  range_ok = len_ok;
    endcase
  end

  always_comb begin
    acc_err = 1'b0;
    if (in_buf) begin
      acc_err = busy_q;
    end else begin
      unique case (addr_i)
        16'(kite_cpu_io_pkg::FLASH_ADDR), 16'(kite_cpu_io_pkg::FLASH_LEN), 16'(kite_cpu_io_pkg::FLASH_TIMEOUT):
          acc_err = we_i && !full;
        16'(kite_cpu_io_pkg::FLASH_CMD):
          acc_err = we_i && (!full || (busy_q && wdata_i != 32'(OP_ABORT)));
        16'(kite_cpu_io_pkg::FLASH_STATUS):
          acc_err = we_i;
        default:
          acc_err = 1'b1;
      endcase
    end
  end
  assign cpu_buf_we = wr && in_buf;
  assign start      = wr && addr_i == 16'(kite_cpu_io_pkg::FLASH_CMD) && !busy_q && wdata_i != 32'(OP_ABORT);
  assign abort      = wr && addr_i == 16'(kite_cpu_io_pkg::FLASH_CMD) && busy_q;   // (acc_err: only ABORT)

  logic        ans_err_q;
  logic [31:0] ans_q;
  always_ff @(posedge clk_i) begin
    if (req_i) begin
      if (in_buf) begin
        ans_q <= buf_q[addr_i[7:2]];
      end else begin
        unique case (addr_i)
          16'(kite_cpu_io_pkg::FLASH_ADDR):    ans_q <= addr_q;
          16'(kite_cpu_io_pkg::FLASH_LEN):     ans_q <= len_q;
          16'(kite_cpu_io_pkg::FLASH_TIMEOUT): ans_q <= tmo_q;
          16'(kite_cpu_io_pkg::FLASH_CMD):     ans_q <= {28'h0, op_q};
          16'(kite_cpu_io_pkg::FLASH_STATUS):  ans_q <= {16'h0, stat_q, err_q, 3'b000, busy_q};
          default:                             ans_q <= '0;
        endcase
      end
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) ans_err_q <= 1'b0;
    else         ans_err_q <= req_i && acc_err;
  end
  assign err_o   = ans_err_q;
  assign rdata_o = ans_q;

  // ---------------------------------------------------------------- the sequence
  logic timed_out;
  assign timed_out = us_q >= o_tmo_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      addr_q <= '0; len_q <= '0; tmo_q <= '0; op_q <= '0; err_q <= E_NONE; stat_q <= '0; busy_q <= 1'b0;
      o_addr_q <= '0; o_len_q <= '0; o_tmo_q <= '0; us_q <= '0; pre_q <= '0;
      o_q <= O_IDLE; t_req_q <= 1'b0; rdy_q <= 1'b0; ferr_q <= '0;
    end else begin
      if (wr && addr_i == 16'(kite_cpu_io_pkg::FLASH_ADDR))    addr_q <= wdata_i;
      if (wr && addr_i == 16'(kite_cpu_io_pkg::FLASH_LEN))     len_q <= wdata_i;
      if (wr && addr_i == 16'(kite_cpu_io_pkg::FLASH_TIMEOUT)) tmo_q <= wdata_i;

      // Microseconds, saturating.
      if (pre_q == PW'(CLK_MHZ - 1)) begin
        pre_q <= '0;
        if (us_q != '1) us_q <= us_q + 1'b1;
      end else begin
        pre_q <= pre_q + 1'b1;
      end

      if (t_start) t_req_q <= 1'b0;
      if (rx_store && !t_to_buf) stat_q <= rx_byte;

      if (start) begin
        op_q <= cmd_op;
        if (!cmd_known) begin
          err_q <= E_OP;
        end else if (!range_ok) begin
          err_q <= E_RANGE;
        end else begin
          err_q <= E_NONE; busy_q <= 1'b1; o_q <= O_POLL; t_req_q <= 1'b1; rdy_q <= 1'b0;
          o_addr_q <= addr_q; o_len_q <= len_q[8:0]; o_tmo_q <= tmo_q; us_q <= '0; pre_q <= '0;
        end
      end else if (abort) begin
        err_q <= E_ABORT; busy_q <= 1'b0; o_q <= O_IDLE; t_req_q <= 1'b0;
      end else if (t_done) begin
        unique case (o_q)
          O_POLL, O_POLL2:
            if (stat_q[7]) begin
              if (!rdy_q) begin
                rdy_q <= 1'b1; ferr_q <= stat_q & FSR_ERR; t_req_q <= 1'b1;
              end else if (o_q == O_POLL) begin
                // Error bits left by an operation that timed out are
                // cleared first, so they are not taken for this one's.
                rdy_q <= 1'b0; t_req_q <= 1'b1;
                o_q <= ((ferr_q | stat_q) & FSR_ERR) != '0 ? O_CLR0 : pe ? O_WREN : O_CMD;
              end else if (((ferr_q | stat_q) & FSR_ERR) != '0) begin
                o_q <= O_CLFS; t_req_q <= 1'b1;
              end else begin
                o_q <= O_IDLE; busy_q <= 1'b0;
              end
            end else if (timed_out) begin
              o_q <= O_IDLE; busy_q <= 1'b0; err_q <= E_TIME;
            end else begin
              rdy_q <= 1'b0; t_req_q <= 1'b1;
            end
          O_CLR0: begin o_q <= pe ? O_WREN : O_CMD; t_req_q <= 1'b1; end
          O_WREN: begin o_q <= O_RDSR; t_req_q <= 1'b1; end
          O_RDSR:
            if (stat_q[1]) begin o_q <= O_CMD; t_req_q <= 1'b1; end
            else begin o_q <= O_IDLE; busy_q <= 1'b0; err_q <= E_WEL; end
          O_CMD:
            if (pe) begin o_q <= O_POLL2; rdy_q <= 1'b0; t_req_q <= 1'b1; end
            else begin o_q <= O_IDLE; busy_q <= 1'b0; end
          O_CLFS: begin o_q <= O_IDLE; busy_q <= 1'b0; err_q <= E_FAIL; end
          default: o_q <= O_IDLE;
        endcase
      end
    end
  end
endmodule
