// The control CPU's MMIO window onto kite_card's firmware ports (register
// map: fpga/spec, group cpu_io; kite_cpu_io_pkg). kite_cpu_sys passes
// its 0x2000_0000 window here; the firmware's HAL for the board drives it
// (fw::PortHal translates contexts into these port writes).
//
// Port writes (function table, PAUSE, RSS and filter words, the identity
// and command-queue registers) are one-cycle strobes when their last
// register is written. The SQ/RQ context, kite_cq command and counter
// ports hold their request until the card takes it; *_GO reads busy (WQ_GO
// also while the card drains the write: the command completes after). The
// DMA engine moves at most 4 KiB per transfer through a staging buffer in
// address lanes: buffer byte (DMA_ADDR & 63) + i is host byte DMA_ADDR + i,
// so read beats land where the card delivers them and write words leave as
// the card takes them (64-byte, address aligned), with no byte shifter; the
// HAL adds the offset. Fields are taken from the registers while a request
// is pending: the firmware waits for busy to clear before rewriting them.
//
// WQ errors are kept as a bit per RQ and SQ until the firmware reads them
// (a read returns a word and clears what it returned), so none is lost
// however many come at once; WQ_ERR_SUM says which words to read.
//
// Every access is answered the cycle after the request (registered reads);
// an unmapped offset answers with an error (an access fault in the CPU).
// Also here: the nanosecond clock (TIME), the card's microsecond time and
// moderation tick, and a byte port for a debug UART. FLASH_REGS
// (0x400..0x5ff) goes to the flash controller (kite_flash, beside this
// block in kite_card_sys) as the same one-cycle access; its answer, error
// included, is the window's.
module kite_cpu_io #(
  parameter int unsigned NQ      = 512,
  parameter int unsigned FN_W    = 5,
  parameter int unsigned NPORT   = 2,
  parameter int unsigned NVF     = 16,
  parameter int unsigned CLK_MHZ = 250      // the clock, for TIME and the microsecond tick
) (
  input  logic                      clk_i,
  input  logic                      rst_ni,

  // From kite_cpu_sys.
  input  logic                      io_req_i,
  input  logic                      io_we_i,
  input  logic [15:0]               io_addr_i,
  input  logic [3:0]                io_be_i,
  input  logic [31:0]               io_wdata_i,
  output logic                      io_ack_o,
  output logic                      io_err_o,
  output logic [31:0]               io_rdata_o,

  // Board straps and state.
  input  logic [63:0]               serial_i,
  input  logic [47:0]               mac_base_i,       // byte 0 (first on the wire) in 47:40
  input  logic [FN_W-1:0]           num_vfs_i,        // the host's NumVFs
  input  logic [NPORT-1:0]          link_i,
  output logic                      uart_valid_o,
  output logic [7:0]                uart_data_o,
  output logic [31:0]               now_us_o,
  output logic                      tick_o,

  // kite_card's firmware ports (its fw_* inputs are outputs here).
  output logic                      fw_fn_we_o,
  output logic [FN_W-1:0]           fw_fn_sel_o,
  output logic [8:0]                fw_fn_db_pages_o,
  output logic [$clog2(NPORT)-1:0]  fw_fn_port_o,
  output logic                      fw_wq_valid_o,
  input  logic                      fw_wq_ready_i,
  input  logic                      fw_wq_busy_i,     // taken, still draining: WQ_GO reads busy
  output logic                      fw_wq_rq_o,
  output logic [$clog2(NQ)-1:0]     fw_wq_qn_o,
  output logic                      fw_wq_en_o,
  output logic [1:0]                fw_wq_state_o,
  output logic [FN_W-1:0]           fw_wq_fn_o,
  output logic [7:0]                fw_wq_page_o,
  output logic [3:0]                fw_wq_log_size_o,
  output logic [3:0]                fw_wq_log_stride_o,
  output logic [15:0]               fw_wq_cqn_o,
  output logic [$clog2(NPORT)-1:0]  fw_wq_port_o,
  output logic [63:0]               fw_wq_base_o,
  output logic [7:0]                fw_wq_flags_o,
  output logic                      fw_cq_valid_o,
  input  logic                      fw_cq_ready_i,
  output logic [2:0]                fw_cq_op_o,
  output logic [15:0]               fw_cq_qn_o,
  output logic [255:0]              fw_cq_data_o,
  output logic                      fw_rss_we_o,
  output logic [$clog2(NPORT)+3:0]  fw_rss_ctx_o,
  output logic [8:0]                fw_rss_addr_o,
  output logic [31:0]               fw_rss_wdata_o,
  output logic                      fw_flt_we_o,
  output logic [$clog2(NPORT)-1:0]  fw_flt_port_o,
  output logic [9:0]                fw_flt_addr_o,
  output logic [63:0]               fw_flt_wdata_o,
  output logic                      fw_port_we_o,
  output logic [$clog2(NPORT)-1:0]  fw_port_sel_o,
  output logic                      fw_port_pause_o,

  output logic [31:0]               fw_version_o,
  output logic [63:0]               serial_o,
  output logic [31:0]               func_info_o,
  output logic [2:0]                dev_status_o,
  output logic [31:0]               health_syndrome_o,
  output logic [31:0]               heartbeat_o,
  output logic [FN_W-1:0]           cmdq_sel_o,
  output logic                      cmdq_ci_we_o,
  output logic [15:0]               cmdq_ci_o,
  output logic [NVF:0]              reset_done_o,
  input  logic [NVF:0]              reset_req_i,
  input  logic [NVF:0]              cmdq_enable_i,
  input  logic [NVF:0]              cmdq_db_i,
  input  logic [63:0]               cmdq_base_i,
  input  logic [3:0]                cmdq_log_size_i,
  input  logic [15:0]               cmdq_pi_i,
  input  logic [15:0]               cmdq_ci_i,

  output logic                      fw_rd_valid_o,
  input  logic                      fw_rd_ready_i,
  output logic [FN_W-1:0]           fw_rd_fn_o,
  output logic [63:0]               fw_rd_addr_o,
  output logic [15:0]               fw_rd_len_o,
  input  logic                      fw_rd_rsp_valid_i,
  input  logic [511:0]              fw_rd_rsp_data_i,
  input  logic [63:0]               fw_rd_rsp_keep_i,
  input  logic                      fw_rd_rsp_last_i,
  input  logic                      fw_rd_rsp_err_i,
  output logic                      fw_wr_valid_o,
  input  logic                      fw_wr_ready_i,
  output logic [FN_W-1:0]           fw_wr_fn_o,
  output logic [63:0]               fw_wr_addr_o,
  output logic [15:0]               fw_wr_len_o,
  output logic                      fw_wd_valid_o,
  input  logic                      fw_wd_ready_i,
  output logic [511:0]              fw_wd_o,
  input  logic                      fw_wr_done_i,
  input  logic                      fw_wr_err_i,

  output logic                      fw_st_valid_o,
  input  logic                      fw_st_ready_i,
  output logic [13:0]               fw_st_idx_o,
  output logic                      fw_st_clear_o,
  input  logic                      fw_st_rvalid_i,
  input  logic [63:0]               fw_st_rdata_i,

  // A WQ the datapath moved to ERR (a DMA error): the firmware's copy of
  // the context must follow (WQ_ERR).
  input  logic                      rq_err_i,
  input  logic [$clog2(NQ)-1:0]     rq_err_qn_i,
  input  logic                      sq_err_i,
  input  logic [$clog2(NQ)-1:0]     sq_err_qn_i,

  // FLASH_REGS, forwarded (kite_flash's register side).
  output logic                      flash_req_o,
  output logic                      flash_we_o,
  output logic [15:0]               flash_addr_o,
  output logic [3:0]                flash_be_o,
  output logic [31:0]               flash_wdata_o,
  input  logic                      flash_err_i,
  input  logic [31:0]               flash_rdata_i
);
  localparam int unsigned PW = $clog2(NPORT);
  localparam int unsigned NW = 2 * NQ / 32;    // WQ_ERR words: RQs, then SQs
  localparam int unsigned NLINE = 128;        // staging buffer lines of 64 bytes (65 used)

  // ---------------------------------------------------------------- registers
  logic [31:0] wq_a_q, wq_b_q, wq_cqn_q, wq_base_lo_q, wq_base_hi_q;
  logic [31:0] cmd_op_q, cmd_data_q [8];
  logic [31:0] rss_sel_q, flt_sel_q, flt_lo_q, st_idx_q;
  logic [31:0] dma_lo_q, dma_hi_q, dma_len_q, dma_fn_q;
  logic [63:0] st_data_q, ns_q;
  logic [31:0] time_hi_q;
  logic        dma_busy_q, dma_err_q, st_wait_q;
  logic [NVF:0] reset_pend_q;                 // function reset requests (DEV_CTRL.RESET) not yet done

  assign fw_wq_qn_o         = wq_a_q[$clog2(NQ)-1:0];
  assign fw_wq_rq_o         = wq_a_q[16];
  assign fw_wq_en_o         = wq_a_q[17];
  assign fw_wq_state_o      = wq_a_q[19:18];
  assign fw_wq_fn_o         = wq_a_q[24 +: FN_W];
  assign fw_wq_page_o       = wq_b_q[7:0];
  assign fw_wq_log_size_o   = wq_b_q[11:8];
  assign fw_wq_log_stride_o = wq_b_q[15:12];
  assign fw_wq_port_o       = wq_b_q[16 +: PW];
  assign fw_wq_flags_o      = wq_b_q[31:24];
  assign fw_wq_cqn_o        = wq_cqn_q[15:0];
  assign fw_wq_base_o       = {wq_base_hi_q, wq_base_lo_q};
  assign fw_cq_op_o         = cmd_op_q[2:0];
  assign fw_cq_qn_o         = cmd_op_q[31:16];
  for (genvar i = 0; i < 8; i++) begin : g_cmd
    assign fw_cq_data_o[32*i +: 32] = cmd_data_q[i];
  end
  assign fw_st_idx_o        = st_idx_q[13:0];
  assign fw_st_clear_o      = st_idx_q[16];
  assign fw_rd_fn_o         = dma_fn_q[FN_W-1:0];
  assign fw_rd_addr_o       = {dma_hi_q, dma_lo_q};
  assign fw_rd_len_o        = dma_len_q[15:0];
  assign fw_wr_fn_o         = dma_fn_q[FN_W-1:0];
  assign fw_wr_addr_o       = {dma_hi_q, dma_lo_q};
  assign fw_wr_len_o        = dma_len_q[15:0];
  assign serial_o           = serial_i;

  // ---------------------------------------------------------------- staging buffer
  // Sixteen 32-bit banks, one port each: the DMA engine uses all of them at
  // one line, the CPU one of them; the DMA engine goes first.
  logic [6:0]   b_line;
  logic [15:0]  b_we_dma;                     // banks the DMA engine writes
  logic [63:0]  b_be;                         // byte enables, 4 per bank
  logic [511:0] b_wdata, b_rdata;
  logic         b_dma;                        // the DMA engine has the port this cycle
  logic         cpu_buf, cpu_go;              // the CPU's access is to the buffer / starts now
  logic [3:0]   cpu_bank;

  for (genvar k = 0; k < 16; k++) begin : g_bank
    logic [31:0] mem [NLINE];
    logic        we;
    assign we = b_dma ? b_we_dma[k] : (cpu_go && cpu_buf && io_we_i && cpu_bank == 4'(k));
    always_ff @(posedge clk_i) begin
      if (we)
        for (int j = 0; j < 4; j++)
          if (b_be[4*k + j]) mem[b_line][8*j +: 8] <= b_wdata[32*k + 8*j +: 8];
      b_rdata[32*k +: 32] <= mem[b_line];
    end
  end

  // ---------------------------------------------------------------- DMA engine
  typedef enum logic [2:0] {D_IDLE, D_RD_REQ, D_RD_DATA, D_WR_REQ, D_WR_LOAD, D_WR_CAP, D_WR_SEND, D_WR_DONE} dstate_e;
  dstate_e     d_q;
  logic [6:0]  d_line_q, d_lines_q;
  logic        dma_start_rd, dma_start_wr, dma_bad;

  always_comb begin
    b_dma = 1'b0; b_we_dma = '0; b_be = '0; b_wdata = '0; b_line = '0;
    if (d_q == D_RD_DATA && fw_rd_rsp_valid_i) begin
      b_dma = 1'b1; b_line = d_line_q; b_wdata = fw_rd_rsp_data_i; b_be = fw_rd_rsp_keep_i;
      for (int k = 0; k < 16; k++) b_we_dma[k] = |fw_rd_rsp_keep_i[4*k +: 4];
    end else if (d_q == D_WR_LOAD) begin
      b_dma = 1'b1; b_line = d_line_q;
    end else begin
      b_line = io_addr_i[12:6];
      b_wdata = {16{io_wdata_i}};
      b_be = 64'(io_be_i) << {io_addr_i[5:2], 2'b00};
    end
  end

  assign fw_rd_valid_o = d_q == D_RD_REQ;
  assign fw_wr_valid_o = d_q == D_WR_REQ;
  assign fw_wd_valid_o = d_q == D_WR_SEND;
  // A write word waits for the card in its own register, so the CPU keeps
  // the buffer meanwhile.
  logic [511:0] wd_q;
  always_ff @(posedge clk_i) if (d_q == D_WR_CAP) wd_q <= b_rdata;
  assign fw_wd_o       = wd_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      d_q <= D_IDLE; d_line_q <= '0; d_lines_q <= '0; dma_busy_q <= 1'b0; dma_err_q <= 1'b0;
    end else begin
      if (dma_bad) dma_err_q <= 1'b1;             // refused: a length out of 1..4096, an unknown op, busy
      unique case (d_q)
        D_IDLE:
          if (dma_start_rd || dma_start_wr) begin
            dma_busy_q <= 1'b1; dma_err_q <= 1'b0; d_line_q <= '0;
            // Lines the transfer touches: (offset in the first line + length) / 64, rounded up.
            d_lines_q <= 7'((13'(dma_lo_q[5:0]) + 13'(dma_len_q[12:0]) + 13'd63) >> 6);
            d_q <= dma_start_rd ? D_RD_REQ : D_WR_REQ;
          end
        D_RD_REQ: if (fw_rd_ready_i) d_q <= D_RD_DATA;
        D_RD_DATA:
          if (fw_rd_rsp_valid_i) begin
            d_line_q <= d_line_q + 7'd1;
            if (fw_rd_rsp_last_i) begin
              dma_busy_q <= 1'b0; dma_err_q <= fw_rd_rsp_err_i; d_q <= D_IDLE;
            end
          end
        D_WR_REQ: if (fw_wr_ready_i) d_q <= D_WR_LOAD;
        D_WR_LOAD: d_q <= D_WR_CAP;               // the line's read
        D_WR_CAP:  d_q <= D_WR_SEND;
        D_WR_SEND:
          if (fw_wd_ready_i) begin
            d_line_q <= d_line_q + 7'd1;
            d_q <= d_line_q + 7'd1 == d_lines_q ? D_WR_DONE : D_WR_LOAD;
          end
        D_WR_DONE:
          if (fw_wr_done_i) begin
            dma_busy_q <= 1'b0; dma_err_q <= fw_wr_err_i; d_q <= D_IDLE;
          end
        default: d_q <= D_IDLE;
      endcase
    end
  end

  // ---------------------------------------------------------------- the window
  // An access is taken in its first cycle (writes act then) and answered in
  // the next; a buffer access waits while the DMA engine has the port.
  logic        pend_q, pend_err_q, pend_buf_q, pend_flash_q;
  logic        cpu_flash;
  logic [31:0] pend_data_q;
  logic [15:0] a;
  assign a        = io_addr_i;
  assign cpu_buf  = a[15:13] == 3'(kite_cpu_io_pkg::DMA_BUF >> 13);
  assign cpu_bank = a[5:2];
  assign cpu_flash = a[15:9] == 7'(kite_cpu_io_pkg::FLASH_REGS >> 9);
  assign cpu_go   = io_req_i && !pend_q && !(cpu_buf && b_dma);

  logic        map_ok;
  logic [31:0] rd;
  always_comb begin
    map_ok = 1'b1;
    rd = '0;
    if (a[15:9] == 7'(kite_cpu_io_pkg::CMD_DATA >> 9) && a[8:5] == 4'((kite_cpu_io_pkg::CMD_DATA >> 5) & 15)) begin
      rd = cmd_data_q[a[4:2]];
    end else if (a[15:7] == 9'(kite_cpu_io_pkg::WQ_ERR >> 7)) begin
      rd = wqe_q[32*wqe_w +: 32];
    end else if (cpu_flash) begin
      rd = '0;                                // kite_flash answers, and judges the offset
    end else begin
      unique case (a)
        16'(kite_cpu_io_pkg::FW_VERSION):    rd = fw_version_o;
        16'(kite_cpu_io_pkg::HEALTH):        rd = health_syndrome_o;
        16'(kite_cpu_io_pkg::HEARTBEAT):     rd = heartbeat_o;
        16'(kite_cpu_io_pkg::DEV_STATUS):    rd = {29'h0, dev_status_o};
        16'(kite_cpu_io_pkg::FUNC_INFO):     rd = func_info_o;
        16'(kite_cpu_io_pkg::SERIAL_LO):     rd = serial_i[31:0];
        16'(kite_cpu_io_pkg::SERIAL_HI):     rd = serial_i[63:32];
        16'(kite_cpu_io_pkg::MAC_LO):        rd = mac_base_i[31:0];
        16'(kite_cpu_io_pkg::MAC_HI):        rd = {16'h0, mac_base_i[47:32]};
        16'(kite_cpu_io_pkg::NUM_FN):        rd = 32'(num_vfs_i) + 32'd1;
        16'(kite_cpu_io_pkg::NUM_PORTS):     rd = 32'(NPORT);
        16'(kite_cpu_io_pkg::LINK):          rd = 32'(link_i);
        16'(kite_cpu_io_pkg::TIME_LO):       rd = ns_q[31:0];
        16'(kite_cpu_io_pkg::TIME_HI):       rd = time_hi_q;
        16'(kite_cpu_io_pkg::UART):          rd = '0;
        16'(kite_cpu_io_pkg::CMDQ_SEL):      rd = 32'(cmdq_sel_o);
        16'(kite_cpu_io_pkg::CMDQ_BASE_LO):  rd = cmdq_base_i[31:0];
        16'(kite_cpu_io_pkg::CMDQ_BASE_HI):  rd = cmdq_base_i[63:32];
        16'(kite_cpu_io_pkg::CMDQ_LOG_SIZE): rd = 32'(cmdq_log_size_i);
        16'(kite_cpu_io_pkg::CMDQ_PI):       rd = 32'(cmdq_pi_i);
        16'(kite_cpu_io_pkg::CMDQ_CI):       rd = 32'(cmdq_ci_i);
        16'(kite_cpu_io_pkg::RESET_REQ):     rd = 32'(reset_pend_q);
        16'(kite_cpu_io_pkg::CMDQ_ENABLE):   rd = 32'(cmdq_enable_i);
        16'(kite_cpu_io_pkg::CMDQ_DB):       rd = 32'(cmdq_db_i);
        16'(kite_cpu_io_pkg::RESET_DONE), 16'(kite_cpu_io_pkg::FN_CTL), 16'(kite_cpu_io_pkg::PORT_CTL), 16'(kite_cpu_io_pkg::RSS_DATA),
        16'(kite_cpu_io_pkg::FLT_HI), 16'(kite_cpu_io_pkg::DMA_CTRL): rd = '0;   // write-only
        16'(kite_cpu_io_pkg::RSS_SEL):       rd = rss_sel_q;
        16'(kite_cpu_io_pkg::FLT_SEL):       rd = flt_sel_q;
        16'(kite_cpu_io_pkg::FLT_LO):        rd = flt_lo_q;
        16'(kite_cpu_io_pkg::WQ_BASE_LO):    rd = wq_base_lo_q;
        16'(kite_cpu_io_pkg::WQ_BASE_HI):    rd = wq_base_hi_q;
        16'(kite_cpu_io_pkg::WQ_A):          rd = wq_a_q;
        16'(kite_cpu_io_pkg::WQ_B):          rd = wq_b_q;
        16'(kite_cpu_io_pkg::WQ_CQN):        rd = wq_cqn_q;
        16'(kite_cpu_io_pkg::WQ_GO):         rd = {31'h0, fw_wq_valid_o || fw_wq_busy_i};
        16'(kite_cpu_io_pkg::CMD_OP):        rd = cmd_op_q;
        16'(kite_cpu_io_pkg::CMD_GO):        rd = {31'h0, fw_cq_valid_o};
        16'(kite_cpu_io_pkg::ST_IDX):        rd = st_idx_q;
        16'(kite_cpu_io_pkg::ST_GO):         rd = {31'h0, fw_st_valid_o || st_wait_q};
        16'(kite_cpu_io_pkg::ST_LO):         rd = st_data_q[31:0];
        16'(kite_cpu_io_pkg::ST_HI):         rd = st_data_q[63:32];
        16'(kite_cpu_io_pkg::DMA_ADDR_LO):   rd = dma_lo_q;
        16'(kite_cpu_io_pkg::DMA_ADDR_HI):   rd = dma_hi_q;
        16'(kite_cpu_io_pkg::DMA_LEN):       rd = dma_len_q;
        16'(kite_cpu_io_pkg::DMA_FN):        rd = dma_fn_q;
        16'(kite_cpu_io_pkg::DMA_STATUS):    rd = {30'h0, dma_err_q, dma_busy_q};
        16'(kite_cpu_io_pkg::WQ_ERR_SUM):    rd = wqe_sum;
        default:                   map_ok = cpu_buf;
      endcase
    end
  end

  // A counter read: taken, then its data (possibly in the same cycle).
  logic st_taken, st_got;
  assign st_taken = fw_st_valid_o && fw_st_ready_i;
  assign st_got   = fw_st_rvalid_i && (st_wait_q || st_taken);

  // WQ errors: bit q of the RQ half, NQ + q of the SQ half.
  logic [2*NQ-1:0] wqe_q, wqe_set, wqe_clr;
  logic [31:0]     wqe_sum;
  logic            wqe_rd;
  logic [$clog2(NW)-1:0] wqe_w;
  always_comb begin
    wqe_set = '0;
    if (rq_err_i) wqe_set[{1'b0, rq_err_qn_i}] = 1'b1;
    if (sq_err_i) wqe_set[{1'b1, sq_err_qn_i}] = 1'b1;
    wqe_sum = '0;                                // NQ <= 512: at most 32 words
    for (int w = 0; w < NW; w++) wqe_sum[w] = |wqe_q[32*w +: 32];
  end
  assign wqe_rd  = cpu_go && !io_we_i && a[15:7] == 9'(kite_cpu_io_pkg::WQ_ERR >> 7);
  assign wqe_w   = a[2 +: $clog2(NW)];
  always_comb begin
    wqe_clr = '0;
    if (wqe_rd) wqe_clr[32*wqe_w +: 32] = wqe_q[32*wqe_w +: 32];
  end

  // What a write starts.
  logic wr;
  assign wr           = cpu_go && io_we_i;
  logic dma_ok;
  assign dma_ok       = d_q == D_IDLE && dma_len_q != 0 && dma_len_q <= 32'd4096;
  assign dma_start_rd = wr && a == 16'(kite_cpu_io_pkg::DMA_CTRL) && io_wdata_i == 32'd1 && dma_ok;
  assign dma_start_wr = wr && a == 16'(kite_cpu_io_pkg::DMA_CTRL) && io_wdata_i == 32'd2 && dma_ok;
  assign dma_bad      = wr && a == 16'(kite_cpu_io_pkg::DMA_CTRL) && !dma_start_rd && !dma_start_wr;

  // The microsecond clock and tick for kite_card (moderation), TIME in ns.
  localparam int unsigned NS_PER_CLK = 1000 / CLK_MHZ;
  logic [$clog2(CLK_MHZ)-1:0] us_div_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pend_q <= 1'b0; pend_err_q <= 1'b0; pend_buf_q <= 1'b0; pend_flash_q <= 1'b0; pend_data_q <= '0;
      wq_a_q <= '0; wq_b_q <= '0; wq_cqn_q <= '0; wq_base_lo_q <= '0; wq_base_hi_q <= '0;
      cmd_op_q <= '0; for (int i = 0; i < 8; i++) cmd_data_q[i] <= '0;
      rss_sel_q <= '0; flt_sel_q <= '0; flt_lo_q <= '0; st_idx_q <= '0; st_data_q <= '0; st_wait_q <= 1'b0;
      dma_lo_q <= '0; dma_hi_q <= '0; dma_len_q <= '0; dma_fn_q <= '0;
      fw_version_o <= '0; health_syndrome_o <= '0; heartbeat_o <= '0; dev_status_o <= '0; func_info_o <= '0;
      cmdq_sel_o <= '0; cmdq_ci_we_o <= 1'b0; cmdq_ci_o <= '0; reset_done_o <= '0;
      fw_fn_we_o <= 1'b0; fw_fn_sel_o <= '0; fw_fn_db_pages_o <= '0; fw_fn_port_o <= '0;
      fw_port_we_o <= 1'b0; fw_port_sel_o <= '0; fw_port_pause_o <= 1'b0;
      fw_rss_we_o <= 1'b0; fw_rss_ctx_o <= '0; fw_rss_addr_o <= '0; fw_rss_wdata_o <= '0;
      fw_flt_we_o <= 1'b0; fw_flt_port_o <= '0; fw_flt_addr_o <= '0; fw_flt_wdata_o <= '0;
      fw_wq_valid_o <= 1'b0; fw_cq_valid_o <= 1'b0; fw_st_valid_o <= 1'b0;
      uart_valid_o <= 1'b0; uart_data_o <= '0;
      ns_q <= '0; time_hi_q <= '0; now_us_o <= '0; tick_o <= 1'b0; us_div_q <= '0;
      wqe_q <= '0; reset_pend_q <= '0;
    end else begin
      wqe_q <= (wqe_q & ~wqe_clr) | wqe_set;   // an error in the read's cycle stays for the next read
      // kite_regs pulses reset_req for one cycle; the firmware polls. A
      // request in the cycle of its RESET_DONE write stays for the next pass.
      reset_pend_q <= (reset_pend_q & ~((wr && a == 16'(kite_cpu_io_pkg::RESET_DONE)) ? io_wdata_i[NVF:0] : '0))
                      | reset_req_i;
      // One-cycle strobes.
      cmdq_ci_we_o <= 1'b0; reset_done_o <= '0; fw_fn_we_o <= 1'b0; fw_port_we_o <= 1'b0;
      fw_rss_we_o <= 1'b0; fw_flt_we_o <= 1'b0; uart_valid_o <= 1'b0; tick_o <= 1'b0;

      ns_q <= ns_q + 64'(NS_PER_CLK);
      if (us_div_q == $bits(us_div_q)'(CLK_MHZ - 1)) begin
        us_div_q <= '0; now_us_o <= now_us_o + 32'd1; tick_o <= 1'b1;
      end else begin
        us_div_q <= us_div_q + 1'b1;
      end

      // Requests held until the card takes them.
      if (fw_wq_ready_i) fw_wq_valid_o <= 1'b0;
      if (fw_cq_ready_i) fw_cq_valid_o <= 1'b0;
      if (st_taken) fw_st_valid_o <= 1'b0;
      st_wait_q <= (st_wait_q || st_taken) && !st_got;
      if (st_got) st_data_q <= fw_st_rdata_i;

      pend_q <= cpu_go;
      if (cpu_go) begin
        pend_err_q <= !map_ok;
        pend_buf_q <= cpu_buf;
        pend_flash_q <= cpu_flash;
        pend_data_q <= rd;
        if (!io_we_i && a == 16'(kite_cpu_io_pkg::TIME_LO)) time_hi_q <= ns_q[63:32];
      end

      if (wr) begin
        if (a[15:9] == 7'(kite_cpu_io_pkg::CMD_DATA >> 9) && a[8:5] == 4'((kite_cpu_io_pkg::CMD_DATA >> 5) & 15))
          cmd_data_q[a[4:2]] <= io_wdata_i;
        unique case (a)
          16'(kite_cpu_io_pkg::FW_VERSION): fw_version_o <= io_wdata_i;
          16'(kite_cpu_io_pkg::HEALTH):     health_syndrome_o <= io_wdata_i;
          16'(kite_cpu_io_pkg::HEARTBEAT):  heartbeat_o <= io_wdata_i;
          16'(kite_cpu_io_pkg::DEV_STATUS): dev_status_o <= io_wdata_i[2:0];
          16'(kite_cpu_io_pkg::FUNC_INFO):  func_info_o <= io_wdata_i;
          16'(kite_cpu_io_pkg::UART):       begin uart_valid_o <= 1'b1; uart_data_o <= io_wdata_i[7:0]; end
          16'(kite_cpu_io_pkg::CMDQ_SEL):   cmdq_sel_o <= io_wdata_i[FN_W-1:0];
          16'(kite_cpu_io_pkg::CMDQ_CI):    begin cmdq_ci_we_o <= 1'b1; cmdq_ci_o <= io_wdata_i[15:0]; end
          16'(kite_cpu_io_pkg::RESET_DONE): reset_done_o <= io_wdata_i[NVF:0];
          16'(kite_cpu_io_pkg::FN_CTL): begin
            fw_fn_we_o <= 1'b1; fw_fn_sel_o <= io_wdata_i[FN_W-1:0];
            fw_fn_port_o <= io_wdata_i[8 +: PW]; fw_fn_db_pages_o <= io_wdata_i[24:16];
          end
          16'(kite_cpu_io_pkg::PORT_CTL): begin
            fw_port_we_o <= 1'b1; fw_port_sel_o <= io_wdata_i[PW-1:0]; fw_port_pause_o <= io_wdata_i[8];
          end
          16'(kite_cpu_io_pkg::RSS_SEL):    rss_sel_q <= io_wdata_i;
          16'(kite_cpu_io_pkg::RSS_DATA): begin
            fw_rss_we_o <= 1'b1; fw_rss_addr_o <= rss_sel_q[8:0]; fw_rss_ctx_o <= rss_sel_q[16 +: PW+4];
            fw_rss_wdata_o <= io_wdata_i;
          end
          16'(kite_cpu_io_pkg::FLT_SEL):    flt_sel_q <= io_wdata_i;
          16'(kite_cpu_io_pkg::FLT_LO):     flt_lo_q <= io_wdata_i;
          16'(kite_cpu_io_pkg::FLT_HI): begin
            fw_flt_we_o <= 1'b1; fw_flt_addr_o <= flt_sel_q[9:0]; fw_flt_port_o <= flt_sel_q[16 +: PW];
            fw_flt_wdata_o <= {io_wdata_i, flt_lo_q};
          end
          16'(kite_cpu_io_pkg::WQ_BASE_LO): wq_base_lo_q <= io_wdata_i;
          16'(kite_cpu_io_pkg::WQ_BASE_HI): wq_base_hi_q <= io_wdata_i;
          16'(kite_cpu_io_pkg::WQ_A):       wq_a_q <= io_wdata_i;
          16'(kite_cpu_io_pkg::WQ_B):       wq_b_q <= io_wdata_i;
          16'(kite_cpu_io_pkg::WQ_CQN):     wq_cqn_q <= io_wdata_i;
          16'(kite_cpu_io_pkg::WQ_GO):      fw_wq_valid_o <= 1'b1;
          16'(kite_cpu_io_pkg::CMD_OP):     cmd_op_q <= io_wdata_i;
          16'(kite_cpu_io_pkg::CMD_GO):     fw_cq_valid_o <= 1'b1;
          16'(kite_cpu_io_pkg::ST_IDX):     st_idx_q <= io_wdata_i;
          16'(kite_cpu_io_pkg::ST_GO):      fw_st_valid_o <= 1'b1;
          16'(kite_cpu_io_pkg::DMA_ADDR_LO): dma_lo_q <= io_wdata_i;
          16'(kite_cpu_io_pkg::DMA_ADDR_HI): dma_hi_q <= io_wdata_i;
          16'(kite_cpu_io_pkg::DMA_LEN):    dma_len_q <= io_wdata_i;
          16'(kite_cpu_io_pkg::DMA_FN):     dma_fn_q <= io_wdata_i;
          default: ;
        endcase
      end
    end
  end

  // The answer: the buffer bank read in the access's cycle, or the register.
  logic [3:0] pend_bank_q;
  always_ff @(posedge clk_i) if (cpu_go) pend_bank_q <= cpu_bank;
  assign io_ack_o   = pend_q;
  assign io_err_o   = pend_q && (pend_flash_q ? flash_err_i : pend_err_q);
  assign io_rdata_o = pend_buf_q ? b_rdata[32*pend_bank_q +: 32] : pend_flash_q ? flash_rdata_i : pend_data_q;

  assign flash_req_o   = cpu_go && cpu_flash;
  assign flash_we_o    = io_we_i;
  assign flash_addr_o  = a;
  assign flash_be_o    = io_be_i;
  assign flash_wdata_o = io_wdata_i;
endmodule
