// The card with its control CPU: kite_card, the CPU that runs the firmware
// with its memories (kite_cpu_sys), the CPU's window onto the card's
// firmware ports (kite_cpu_io) and the functions' MSI-X tables (kite_msix,
// answering the host's BAR4 accesses and handing the PCIe core each
// message). This is the board-independent part of the bitstream; the board
// top (fpga/rtl/top/kite_top.sv) adds the PCIe and CMAC IP, kite_pcie_fn,
// kite_mac_cdc per port, the clocks and the straps.
//
// The firmware image is in the CPU's ROM: from ROM_HEX with the bitstream,
// or written through the loader port while rst_ni holds the card and the
// CPU in reset (simulation). After reset the firmware boots, sets
// DEV_STATUS.READY and serves the command rings, function resets and WQ
// errors (firmware/rv32/hal_mmio.cpp).
module kite_card_sys #(
  parameter int unsigned NQ      = 512,
  parameter int unsigned FN_W    = 5,
  parameter int unsigned NPORT   = 2,
  parameter int unsigned NVF     = 16,
  parameter int unsigned CLK_MHZ = 250,
  parameter int unsigned ROM_KB  = 128,
  parameter              ROM_HEX = "",
  parameter logic [7:0]  VF_FN_BASE = 8'd4   // the PCIe core's number of VF 1
) (
  input  logic                      clk_i,
  input  logic                      rst_ni,

  input  logic                      ld_we_i,
  input  logic [$clog2(ROM_KB*256)-1:0] ld_word_i,
  input  logic [31:0]               ld_data_i,

  // PCIe integrated block (PG213), 512-bit straddle-free interfaces.
  output logic [511:0]              rq_tdata_o,
  output logic [15:0]               rq_tkeep_o,
  output logic                      rq_tlast_o,
  output logic [136:0]              rq_tuser_o,
  output logic                      rq_tvalid_o,
  input  logic                      rq_tready_i,
  input  logic [511:0]              rc_tdata_i,
  input  logic [15:0]               rc_tkeep_i,
  input  logic                      rc_tlast_i,
  input  logic [160:0]              rc_tuser_i,
  input  logic                      rc_tvalid_i,
  output logic                      rc_tready_o,
  input  logic [511:0]              cq_tdata_i,
  input  logic [15:0]               cq_tkeep_i,
  input  logic                      cq_tlast_i,
  input  logic [182:0]              cq_tuser_i,
  input  logic                      cq_tvalid_i,
  output logic                      cq_tready_o,
  output logic [511:0]              cc_tdata_o,
  output logic [15:0]               cc_tkeep_o,
  output logic                      cc_tlast_o,
  output logic [80:0]               cc_tuser_o,
  output logic                      cc_tvalid_o,
  input  logic                      cc_tready_i,
  input  logic [1:0]                cfg_max_payload_i,
  input  logic [2:0]                cfg_max_read_req_i,
  input  logic                      cfg_ext_tag_i,     // Device Control Extended Tag Field Enable
  // MSI-X with the tables here (PG213 "MSI-X External" interface).
  input  logic [3:0]                cfg_interrupt_msix_enable_i,
  input  logic [3:0]                cfg_interrupt_msix_mask_i,
  input  logic [251:0]              cfg_interrupt_msix_vf_enable_i,
  input  logic [251:0]              cfg_interrupt_msix_vf_mask_i,
  output logic [63:0]               cfg_interrupt_msix_address_o,
  output logic [31:0]               cfg_interrupt_msix_data_o,
  output logic                      cfg_interrupt_msix_int_o,
  output logic [7:0]                cfg_interrupt_msi_function_number_o,
  input  logic                      cfg_interrupt_msi_sent_i,
  input  logic                      cfg_interrupt_msi_fail_i,
  output logic                      msix_drop_o,    // a request for a disabled function or missing vector

  // PCIe function level resets: a pulse per FLR the core began; done
  // pulses when the firmware has reset the function (the core's FLR done).
  input  logic [NVF:0]              flr_i,
  output logic [NVF:0]              flr_done_o,

  // MAC ports (frames with FCS) and their statistics pulses.
  output logic [NPORT-1:0]          tx_tvalid_o,
  input  logic [NPORT-1:0]          tx_tready_i,
  output logic [NPORT*512-1:0]      tx_tdata_o,
  output logic [NPORT*64-1:0]       tx_tkeep_o,
  output logic [NPORT-1:0]          tx_tlast_o,
  input  logic [NPORT-1:0]          rx_tvalid_i,
  output logic [NPORT-1:0]          rx_tready_o,
  input  logic [NPORT*512-1:0]      rx_tdata_i,
  input  logic [NPORT*64-1:0]       rx_tkeep_i,
  input  logic [NPORT-1:0]          rx_tlast_i,
  output logic [NPORT-1:0]          rx_xoff_o,
  input  logic [NPORT*8-1:0]        mac_ev_i,

  // Board straps and state.
  input  logic [63:0]               serial_i,
  input  logic [47:0]               mac_base_i,
  input  logic [FN_W-1:0]           num_vfs_i,
  input  logic [NPORT-1:0]          link_i,
  output logic                      uart_valid_o,
  output logic [7:0]                uart_data_o,

  // The configuration flash (kite_flash; STARTUPE3 on the board).
  output logic                      flash_sck_o,
  output logic                      flash_cs_no,
  output logic [3:0]                flash_dq_o,
  output logic [3:0]                flash_dq_oe_o,
  input  logic [3:0]                flash_dq_i,

  // Dropped MMIO writes and CQEs (kite_card): for a debug core.
  output logic [31:0]               mmio_wr_drop_o,
  output logic                      cqe_drop_o
);

  localparam int unsigned QW = $clog2(NQ);
  localparam int unsigned PW = $clog2(NPORT);

  // The CPU and its window.
  logic        io_req, io_we, io_ack, io_err;
  logic [15:0] io_addr;
  logic [3:0]  io_be;
  logic [31:0] io_wdata, io_rdata;

  // kite_cpu_io -> kite_flash (FLASH_REGS).
  logic        fl_req, fl_we, fl_err;
  logic [15:0] fl_addr;
  logic [3:0]  fl_be;
  logic [31:0] fl_wdata, fl_rdata;

  // kite_cpu_io -> kite_card (the card's fw_* and identity inputs).
  logic                 fw_fn_we;
  logic [FN_W-1:0]      fw_fn_sel;
  logic [8:0]           fw_fn_db_pages;
  logic [PW-1:0]        fw_fn_port;
  logic                 fw_wq_valid, fw_wq_ready, fw_wq_busy, fw_wq_rq, fw_wq_en;
  logic [QW-1:0]        fw_wq_qn;
  logic [1:0]           fw_wq_state;
  logic [FN_W-1:0]      fw_wq_fn;
  logic [7:0]           fw_wq_page, fw_wq_flags;
  logic [3:0]           fw_wq_log_size, fw_wq_log_stride;
  logic [15:0]          fw_wq_cqn;
  logic [PW-1:0]        fw_wq_port;
  logic [63:0]          fw_wq_base;
  logic                 fw_cq_valid, fw_cq_ready;
  logic [2:0]           fw_cq_op;
  logic [15:0]          fw_cq_qn;
  logic [255:0]         fw_cq_data;
  logic                 fw_rss_we;
  logic [PW+3:0]        fw_rss_ctx;
  logic [8:0]           fw_rss_addr;
  logic [31:0]          fw_rss_wdata;
  logic                 fw_flt_we;
  logic [PW-1:0]        fw_flt_port;
  logic [9:0]           fw_flt_addr;
  logic [63:0]          fw_flt_wdata;
  logic                 fw_port_we, fw_port_pause;
  logic [PW-1:0]        fw_port_sel;
  logic [31:0]          now_us;
  logic                 tick;
  logic [31:0]          fw_version, func_info, health_syndrome, heartbeat;
  logic [63:0]          serial;
  logic [2:0]           dev_status;
  logic [FN_W-1:0]      cmdq_sel;
  logic                 cmdq_ci_we;
  logic [15:0]          cmdq_ci_wdata;
  logic [NVF:0]         reset_done, reset_req, cmdq_enable, cmdq_db;
  logic [63:0]          cmdq_base;
  logic [3:0]           cmdq_log_size;
  logic [15:0]          cmdq_pi, cmdq_ci;
  // Firmware DMA and counter ports.
  logic                 fw_rd_valid, fw_rd_ready, fw_rd_rsp_valid, fw_rd_rsp_last, fw_rd_rsp_err;
  logic [FN_W-1:0]      fw_rd_fn, fw_wr_fn;
  logic [63:0]          fw_rd_addr, fw_wr_addr, fw_rd_rsp_keep;
  logic [15:0]          fw_rd_len, fw_wr_len;
  logic [511:0]         fw_rd_rsp_data, fw_wd;
  logic                 fw_wr_valid, fw_wr_ready, fw_wd_valid, fw_wd_ready, fw_wr_done, fw_wr_err;
  logic                 fw_st_valid, fw_st_ready, fw_st_clear, fw_st_rvalid;
  logic [13:0]          fw_st_idx;
  logic [63:0]          fw_st_rdata;
  // Interrupt requests and BAR4 accesses between kite_card and kite_msix.
  logic                 msix_valid, msix_ready;
  logic [FN_W-1:0]      msix_fn, tbl_fn;
  logic [15:0]          msix_vector;
  logic                 tbl_req_valid, tbl_req_ready, tbl_req_write, tbl_rsp_valid;
  logic [13:0]          tbl_req_addr;
  logic [31:0]          tbl_req_wdata, tbl_rsp_rdata;
  logic [3:0]           tbl_req_be;
  // WQs the datapath moved to ERR.
  logic                 rq_err, sq_err;
  logic [QW-1:0]        rq_err_qn, sq_err_qn;

  // The CPU's retire port (for testbenches) is left to synthesis to remove.
  logic        rt_valid, rt_trap;
  logic [31:0] rt_pc, rt_insn, rt_tval, rt_rd_val, rt_next_pc;
  logic [3:0]  rt_cause;
  logic [4:0]  rt_rd;
  logic        unused_rt;
  assign unused_rt = ^{rt_valid, rt_trap, rt_pc, rt_insn, rt_tval, rt_rd_val, rt_next_pc, rt_cause, rt_rd};

  kite_cpu_sys #(
    .ROM_KB  (ROM_KB),
    .ROM_HEX (ROM_HEX)
  ) u_cpu_sys (
    .clk_i,
    .rst_ni,
    .ld_we_i,
    .ld_word_i,
    .ld_data_i,
    .io_req_o     (io_req),
    .io_we_o      (io_we),
    .io_addr_o    (io_addr),
    .io_be_o      (io_be),
    .io_wdata_o   (io_wdata),
    .io_ack_i     (io_ack),
    .io_err_i     (io_err),
    .io_rdata_i   (io_rdata),
    // The retire port is for testbenches.
    .rt_valid_o   (rt_valid),
    .rt_pc_o      (rt_pc),
    .rt_insn_o    (rt_insn),
    .rt_trap_o    (rt_trap),
    .rt_cause_o   (rt_cause),
    .rt_tval_o    (rt_tval),
    .rt_rd_o      (rt_rd),
    .rt_rd_val_o  (rt_rd_val),
    .rt_next_pc_o (rt_next_pc)
  );

  kite_cpu_io #(
    .NQ      (NQ),
    .FN_W    (FN_W),
    .NPORT   (NPORT),
    .NVF     (NVF),
    .CLK_MHZ (CLK_MHZ)
  ) u_cpu_io (
    .clk_i,
    .rst_ni,
    .io_req_i           (io_req),
    .io_we_i            (io_we),
    .io_addr_i          (io_addr),
    .io_be_i            (io_be),
    .io_wdata_i         (io_wdata),
    .io_ack_o           (io_ack),
    .io_err_o           (io_err),
    .io_rdata_o         (io_rdata),
    .serial_i,
    .mac_base_i,
    .num_vfs_i,
    .link_i,
    .uart_valid_o,
    .uart_data_o,
    .now_us_o           (now_us),
    .tick_o             (tick),
    .fw_fn_we_o         (fw_fn_we),
    .fw_fn_sel_o        (fw_fn_sel),
    .fw_fn_db_pages_o   (fw_fn_db_pages),
    .fw_fn_port_o       (fw_fn_port),
    .fw_wq_valid_o      (fw_wq_valid),
    .fw_wq_ready_i      (fw_wq_ready),
    .fw_wq_busy_i       (fw_wq_busy),
    .fw_wq_rq_o         (fw_wq_rq),
    .fw_wq_qn_o         (fw_wq_qn),
    .fw_wq_en_o         (fw_wq_en),
    .fw_wq_state_o      (fw_wq_state),
    .fw_wq_fn_o         (fw_wq_fn),
    .fw_wq_page_o       (fw_wq_page),
    .fw_wq_log_size_o   (fw_wq_log_size),
    .fw_wq_log_stride_o (fw_wq_log_stride),
    .fw_wq_cqn_o        (fw_wq_cqn),
    .fw_wq_port_o       (fw_wq_port),
    .fw_wq_base_o       (fw_wq_base),
    .fw_wq_flags_o      (fw_wq_flags),
    .fw_cq_valid_o      (fw_cq_valid),
    .fw_cq_ready_i      (fw_cq_ready),
    .fw_cq_op_o         (fw_cq_op),
    .fw_cq_qn_o         (fw_cq_qn),
    .fw_cq_data_o       (fw_cq_data),
    .fw_rss_we_o        (fw_rss_we),
    .fw_rss_ctx_o       (fw_rss_ctx),
    .fw_rss_addr_o      (fw_rss_addr),
    .fw_rss_wdata_o     (fw_rss_wdata),
    .fw_flt_we_o        (fw_flt_we),
    .fw_flt_port_o      (fw_flt_port),
    .fw_flt_addr_o      (fw_flt_addr),
    .fw_flt_wdata_o     (fw_flt_wdata),
    .fw_port_we_o       (fw_port_we),
    .fw_port_sel_o      (fw_port_sel),
    .fw_port_pause_o    (fw_port_pause),
    .fw_version_o       (fw_version),
    .serial_o           (serial),
    .func_info_o        (func_info),
    .dev_status_o       (dev_status),
    .health_syndrome_o  (health_syndrome),
    .heartbeat_o        (heartbeat),
    .cmdq_sel_o         (cmdq_sel),
    .cmdq_ci_we_o       (cmdq_ci_we),
    .cmdq_ci_o          (cmdq_ci_wdata),
    .reset_done_o       (reset_done),
    .reset_req_i        (reset_req),
    .cmdq_enable_i      (cmdq_enable),
    .cmdq_db_i          (cmdq_db),
    .cmdq_base_i        (cmdq_base),
    .cmdq_log_size_i    (cmdq_log_size),
    .cmdq_pi_i          (cmdq_pi),
    .cmdq_ci_i          (cmdq_ci),
    .fw_rd_valid_o      (fw_rd_valid),
    .fw_rd_ready_i      (fw_rd_ready),
    .fw_rd_fn_o         (fw_rd_fn),
    .fw_rd_addr_o       (fw_rd_addr),
    .fw_rd_len_o        (fw_rd_len),
    .fw_rd_rsp_valid_i  (fw_rd_rsp_valid),
    .fw_rd_rsp_data_i   (fw_rd_rsp_data),
    .fw_rd_rsp_keep_i   (fw_rd_rsp_keep),
    .fw_rd_rsp_last_i   (fw_rd_rsp_last),
    .fw_rd_rsp_err_i    (fw_rd_rsp_err),
    .fw_wr_valid_o      (fw_wr_valid),
    .fw_wr_ready_i      (fw_wr_ready),
    .fw_wr_fn_o         (fw_wr_fn),
    .fw_wr_addr_o       (fw_wr_addr),
    .fw_wr_len_o        (fw_wr_len),
    .fw_wd_valid_o      (fw_wd_valid),
    .fw_wd_ready_i      (fw_wd_ready),
    .fw_wd_o            (fw_wd),
    .fw_wr_done_i       (fw_wr_done),
    .fw_wr_err_i        (fw_wr_err),
    .fw_st_valid_o      (fw_st_valid),
    .fw_st_ready_i      (fw_st_ready),
    .fw_st_idx_o        (fw_st_idx),
    .fw_st_clear_o      (fw_st_clear),
    .fw_st_rvalid_i     (fw_st_rvalid),
    .fw_st_rdata_i      (fw_st_rdata),
    .rq_err_i           (rq_err),
    .rq_err_qn_i        (rq_err_qn),
    .sq_err_i           (sq_err),
    .sq_err_qn_i        (sq_err_qn),
    .flash_req_o        (fl_req),
    .flash_we_o         (fl_we),
    .flash_addr_o       (fl_addr),
    .flash_be_o         (fl_be),
    .flash_wdata_o      (fl_wdata),
    .flash_err_i        (fl_err),
    .flash_rdata_i      (fl_rdata)
  );

  kite_flash #(
    .CLK_MHZ (CLK_MHZ)
  ) u_flash (
    .clk_i,
    .rst_ni,
    .req_i   (fl_req),
    .we_i    (fl_we),
    .addr_i  (fl_addr),
    .be_i    (fl_be),
    .wdata_i (fl_wdata),
    .err_o   (fl_err),
    .rdata_o (fl_rdata),
    .sck_o   (flash_sck_o),
    .cs_no   (flash_cs_no),
    .dq_o    (flash_dq_o),
    .dq_oe_o (flash_dq_oe_o),
    .dq_i    (flash_dq_i)
  );

  kite_card #(
    .NQ    (NQ),
    .FN_W  (FN_W),
    .NPORT (NPORT),
    .NVF   (NVF),
    .VF_FN_BASE (VF_FN_BASE)
  ) u_card (
    .clk_i,
    .rst_ni,
    .rq_tdata_o,
    .rq_tkeep_o,
    .rq_tlast_o,
    .rq_tuser_o,
    .rq_tvalid_o,
    .rq_tready_i,
    .rc_tdata_i,
    .rc_tkeep_i,
    .rc_tlast_i,
    .rc_tuser_i,
    .rc_tvalid_i,
    .rc_tready_o,
    .cq_tdata_i,
    .cq_tkeep_i,
    .cq_tlast_i,
    .cq_tuser_i,
    .cq_tvalid_i,
    .cq_tready_o,
    .cc_tdata_o,
    .cc_tkeep_o,
    .cc_tlast_o,
    .cc_tuser_o,
    .cc_tvalid_o,
    .cc_tready_i,
    .cfg_max_payload_i,
    .cfg_max_read_req_i,
    .cfg_ext_tag_i,
    .msix_valid_o        (msix_valid),
    .msix_ready_i        (msix_ready),
    .msix_fn_o           (msix_fn),
    .msix_vector_o       (msix_vector),
    .tbl_req_valid_o     (tbl_req_valid),
    .tbl_req_ready_i     (tbl_req_ready),
    .tbl_req_write_o     (tbl_req_write),
    .tbl_req_fn_o        (tbl_fn),
    .tbl_req_addr_o      (tbl_req_addr),
    .tbl_req_wdata_o     (tbl_req_wdata),
    .tbl_req_be_o        (tbl_req_be),
    .tbl_rsp_valid_i     (tbl_rsp_valid),
    .tbl_rsp_rdata_i     (tbl_rsp_rdata),
    .tx_tvalid_o,
    .tx_tready_i,
    .tx_tdata_o,
    .tx_tkeep_o,
    .tx_tlast_o,
    .rx_tvalid_i,
    .rx_tready_o,
    .rx_tdata_i,
    .rx_tkeep_i,
    .rx_tlast_i,
    .rx_xoff_o,
    .fw_fn_we_i          (fw_fn_we),
    .fw_fn_sel_i         (fw_fn_sel),
    .fw_fn_db_pages_i    (fw_fn_db_pages),
    .fw_fn_port_i        (fw_fn_port),
    .fw_wq_valid_i       (fw_wq_valid),
    .fw_wq_ready_o       (fw_wq_ready),
    .fw_wq_busy_o        (fw_wq_busy),
    .fw_wq_rq_i          (fw_wq_rq),
    .fw_wq_qn_i          (fw_wq_qn),
    .fw_wq_en_i          (fw_wq_en),
    .fw_wq_state_i       (fw_wq_state),
    .fw_wq_fn_i          (fw_wq_fn),
    .fw_wq_page_i        (fw_wq_page),
    .fw_wq_log_size_i    (fw_wq_log_size),
    .fw_wq_log_stride_i  (fw_wq_log_stride),
    .fw_wq_cqn_i         (fw_wq_cqn),
    .fw_wq_port_i        (fw_wq_port),
    .fw_wq_base_i        (fw_wq_base),
    .fw_wq_flags_i       (fw_wq_flags),
    .fw_cq_valid_i       (fw_cq_valid),
    .fw_cq_ready_o       (fw_cq_ready),
    .fw_cq_op_i          (fw_cq_op),
    .fw_cq_qn_i          (fw_cq_qn),
    .fw_cq_data_i        (fw_cq_data),
    .fw_rss_we_i         (fw_rss_we),
    .fw_rss_ctx_i        (fw_rss_ctx),
    .fw_rss_addr_i       (fw_rss_addr),
    .fw_rss_wdata_i      (fw_rss_wdata),
    .fw_flt_we_i         (fw_flt_we),
    .fw_flt_port_i       (fw_flt_port),
    .fw_flt_addr_i       (fw_flt_addr),
    .fw_flt_wdata_i      (fw_flt_wdata),
    .fw_port_we_i        (fw_port_we),
    .fw_port_sel_i       (fw_port_sel),
    .fw_port_pause_i     (fw_port_pause),
    .now_us_i            (now_us),
    .tick_i              (tick),
    .fw_version_i        (fw_version),
    .serial_i            (serial),
    .func_info_i         (func_info),
    .dev_status_i        (dev_status),
    .health_syndrome_i   (health_syndrome),
    .heartbeat_i         (heartbeat),
    .cmdq_sel_i          (cmdq_sel),
    .cmdq_ci_we_i        (cmdq_ci_we),
    .cmdq_ci_i           (cmdq_ci_wdata),
    .reset_done_i        (reset_done),
    .reset_req_o         (reset_req),
    .flr_i,
    .flr_done_o,
    .cmdq_enable_o       (cmdq_enable),
    .cmdq_db_o           (cmdq_db),
    .cmdq_base_o         (cmdq_base),
    .cmdq_log_size_o     (cmdq_log_size),
    .cmdq_pi_o           (cmdq_pi),
    .cmdq_ci_o           (cmdq_ci),
    .fw_rd_valid_i       (fw_rd_valid),
    .fw_rd_ready_o       (fw_rd_ready),
    .fw_rd_fn_i          (fw_rd_fn),
    .fw_rd_addr_i        (fw_rd_addr),
    .fw_rd_len_i         (fw_rd_len),
    .fw_rd_rsp_valid_o   (fw_rd_rsp_valid),
    .fw_rd_rsp_data_o    (fw_rd_rsp_data),
    .fw_rd_rsp_keep_o    (fw_rd_rsp_keep),
    .fw_rd_rsp_last_o    (fw_rd_rsp_last),
    .fw_rd_rsp_err_o     (fw_rd_rsp_err),
    .fw_wr_valid_i       (fw_wr_valid),
    .fw_wr_ready_o       (fw_wr_ready),
    .fw_wr_fn_i          (fw_wr_fn),
    .fw_wr_addr_i        (fw_wr_addr),
    .fw_wr_len_i         (fw_wr_len),
    .fw_wd_valid_i       (fw_wd_valid),
    .fw_wd_ready_o       (fw_wd_ready),
    .fw_wd_i             (fw_wd),
    .fw_wr_done_o        (fw_wr_done),
    .fw_wr_err_o         (fw_wr_err),
    .fw_st_valid_i       (fw_st_valid),
    .fw_st_ready_o       (fw_st_ready),
    .fw_st_idx_i         (fw_st_idx),
    .fw_st_clear_i       (fw_st_clear),
    .fw_st_rvalid_o      (fw_st_rvalid),
    .fw_st_rdata_o       (fw_st_rdata),
    .mac_ev_i,
    .mmio_wr_drop_o,
    .cqe_drop_o,
    .rq_err_o            (rq_err),
    .rq_err_qn_o         (rq_err_qn),
    .sq_err_o            (sq_err),
    .sq_err_qn_o         (sq_err_qn)
  );

  kite_msix #(
    .NVF        (NVF),
    .FN_W       (FN_W),
    .VF_FN_BASE (VF_FN_BASE)
  ) u_msix (
    .clk_i,
    .rst_ni,
    .req_valid_i   (tbl_req_valid),
    .req_ready_o   (tbl_req_ready),
    .req_write_i   (tbl_req_write),
    .req_fn_i      (tbl_fn),
    .req_addr_i    (tbl_req_addr),
    .req_wdata_i   (tbl_req_wdata),
    .req_be_i      (tbl_req_be),
    .rsp_valid_o   (tbl_rsp_valid),
    .rsp_rdata_o   (tbl_rsp_rdata),
    .msix_valid_i  (msix_valid),
    .msix_ready_o  (msix_ready),
    .msix_fn_i     (msix_fn),
    .msix_vector_i (msix_vector),
    .flr_i,
    .cfg_interrupt_msix_enable_i,
    .cfg_interrupt_msix_mask_i,
    .cfg_interrupt_msix_vf_enable_i,
    .cfg_interrupt_msix_vf_mask_i,
    .cfg_interrupt_msix_address_o,
    .cfg_interrupt_msix_data_o,
    .cfg_interrupt_msix_int_o,
    .cfg_interrupt_msi_function_number_o,
    .cfg_interrupt_msi_sent_i,
    .cfg_interrupt_msi_fail_i,
    .drop_o        (msix_drop_o)
  );

endmodule
