// BAR0 register file of one PCI function, from the offsets and fields in
// kite_pkg (generated from fpga/spec/kite.toml).
//
// Access: 32-bit reads and writes (dword aligned) on a simple request port
// fed by the PCIe completer (CQ) path; a read answers on the next cycle.
// Reserved offsets read 0 and ignore writes.
//
// Behaviour (operation.rst, "Bring-up and reset" and "Command queue"):
// * DEV_CTRL.RESET: writing 1 pulses reset_req_o; the bit reads 1 until
//   reset_done_i. The command ring registers (base, size, PI) are cleared
//   by the reset, as the model's Card::reset_function does.
// * flr_i (the PCIe core began a function level reset of this function):
//   every register returns to its reset value (SCRATCH too) and a reset is
//   requested as by DEV_CTRL.RESET; flr_done_o pulses with the
//   reset_done_i that ends it, for the core's FLR-done input. An FLR in
//   the cycle of a reset_done_i is not ended by it.
// * CMDQ_BASE_LO/HI: written only while CMDQ_LOG_SIZE is 0 (else ignored).
// * CMDQ_LOG_SIZE: 0 disables; 1..8 enables with PI = 0 (cmdq_enable_o
//   pulses; the firmware sets CI = 0) if the base is 4 KiB aligned; other
//   values, or a size on an unaligned base, are ignored.
// * CMDQ_PI: written while enabled stores the 16-bit PI and pulses
//   cmdq_db_o (the doorbell the firmware serves).
// * STATS_BASE..: 64-bit counters of struct port_stats, read through
//   stats_addr_o / stats_data_i (one-cycle synchronous counter RAM).
module kite_regs #(
  parameter logic [31:0] HW_REVISION = 32'h0001_0000,
  parameter logic [31:0] CAPS        = 32'h0000_00d9,  // ETH CSUM TSO RSS VLAN
  parameter logic [31:0] DB_PAGES    = 32'd256,
  parameter logic [31:0] MSIX_VECS   = 32'd64,
  parameter int unsigned STATS_WORDS = 32           // 64-bit counters (port_stats: 2048 bits)
) (
  input  logic        clk_i,
  input  logic        rst_ni,

  input  logic        req_valid_i,
  input  logic        req_write_i,
  input  logic [15:0] req_addr_i,
  input  logic [31:0] req_wdata_i,
  output logic        rsp_valid_o,   // read data, one cycle after a read request
  output logic [31:0] rsp_rdata_o,

  // Identity and status from the rest of the card / the firmware.
  input  logic [31:0] fw_version_i,
  input  logic [63:0] serial_i,
  input  logic [31:0] func_info_i,
  input  logic [2:0]  dev_status_i,  // READY, FATAL, RESETTING
  input  logic [31:0] health_syndrome_i,
  input  logic [31:0] heartbeat_i,
  input  logic [15:0] cmdq_ci_i,
  input  logic        reset_done_i,
  input  logic        flr_i,

  output logic        reset_req_o,
  output logic        flr_done_o,
  output logic [63:0] cmdq_base_o,
  output logic [3:0]  cmdq_log_size_o,
  output logic        cmdq_enable_o,  // pulse: ring (re)enabled, PI = CI = 0
  output logic [15:0] cmdq_pi_o,
  output logic        cmdq_db_o,      // pulse: PI written

  output logic [$clog2(STATS_WORDS)-1:0] stats_addr_o,
  input  logic [63:0] stats_data_i
);

  localparam int unsigned SW = $clog2(STATS_WORDS);

  logic        resetting_q;
  logic        flr_q;          // the reset in progress was asked for by an FLR
  logic [31:0] base_lo_q, base_hi_q, scratch_q;
  logic [3:0]  log_size_q;
  logic [15:0] pi_q;
  logic        wr, rd;

  assign wr = req_valid_i && req_write_i;
  assign rd = req_valid_i && !req_write_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      resetting_q   <= 1'b0;
      base_lo_q     <= '0;
      base_hi_q     <= '0;
      log_size_q    <= '0;
      pi_q          <= '0;
      scratch_q     <= '0;
      reset_req_o   <= 1'b0;
      cmdq_enable_o <= 1'b0;
      cmdq_db_o     <= 1'b0;
      flr_q         <= 1'b0;
      flr_done_o    <= 1'b0;
    end else begin
      reset_req_o   <= 1'b0;
      cmdq_enable_o <= 1'b0;
      cmdq_db_o     <= 1'b0;
      flr_done_o    <= 1'b0;
      if (resetting_q && reset_done_i) resetting_q <= 1'b0;
      if (flr_q && reset_done_i && !flr_i) begin
        flr_q      <= 1'b0;
        flr_done_o <= 1'b1;
      end
      if (wr) begin
        unique case (req_addr_i)
          kite_pkg::REG_DEV_CTRL: begin
            if (req_wdata_i[kite_pkg::REG_DEV_CTRL_RESET_LSB]) begin
              resetting_q <= 1'b1;
              reset_req_o <= 1'b1;
              log_size_q  <= '0;  // a reset disables and clears the command ring
              pi_q        <= '0;
              base_lo_q   <= '0;
              base_hi_q   <= '0;
            end
          end
          kite_pkg::REG_CMDQ_BASE_LO: if (log_size_q == '0) base_lo_q <= req_wdata_i;
          kite_pkg::REG_CMDQ_BASE_HI: if (log_size_q == '0) base_hi_q <= req_wdata_i;
          kite_pkg::REG_CMDQ_LOG_SIZE: begin
            if (req_wdata_i <= 32'd8 && (req_wdata_i == 32'd0 || base_lo_q[11:0] == 12'd0)) begin
              log_size_q    <= req_wdata_i[3:0];
              pi_q          <= '0;
              cmdq_enable_o <= req_wdata_i != 32'd0;
            end
          end
          kite_pkg::REG_CMDQ_PI: begin
            if (log_size_q != '0) begin
              pi_q      <= req_wdata_i[15:0];
              cmdq_db_o <= 1'b1;
            end
          end
          kite_pkg::REG_SCRATCH: scratch_q <= req_wdata_i;
          default: ;
        endcase
      end
      // The core does not forward requests to a function in FLR; one in the
      // same cycle is overridden.
      if (flr_i) begin
        resetting_q <= 1'b1;
        reset_req_o <= 1'b1;
        flr_q       <= 1'b1;
        base_lo_q   <= '0;
        base_hi_q   <= '0;
        log_size_q  <= '0;
        pi_q        <= '0;
        scratch_q   <= '0;
        cmdq_enable_o <= 1'b0;
        cmdq_db_o   <= 1'b0;
      end
    end
  end

  // Counter RAM is read in the same cycle as the request; pick the half later.
  logic is_stats, stats_q, stats_hi_q;
  assign is_stats     = req_addr_i >= kite_pkg::REG_STATS_BASE &&
                        req_addr_i < kite_pkg::REG_STATS_BASE + 16'(8 * STATS_WORDS);
  assign stats_addr_o = SW'((req_addr_i - kite_pkg::REG_STATS_BASE) >> 3);

  logic [31:0] rdata_d;
  always_comb begin
    unique case (req_addr_i)
      kite_pkg::REG_MAGIC:           rdata_d = kite_pkg::MAGIC;
      kite_pkg::REG_SPEC_VERSION:    rdata_d = {16'(kite_pkg::SPEC_MAJOR), 16'(kite_pkg::SPEC_MINOR)};
      kite_pkg::REG_HW_REVISION:     rdata_d = HW_REVISION;
      kite_pkg::REG_FW_VERSION:      rdata_d = fw_version_i;
      kite_pkg::REG_SERIAL_LO:       rdata_d = serial_i[31:0];
      kite_pkg::REG_SERIAL_HI:       rdata_d = serial_i[63:32];
      kite_pkg::REG_FUNC_INFO:       rdata_d = func_info_i;
      kite_pkg::REG_CAPS:            rdata_d = CAPS;
      kite_pkg::REG_DEV_CTRL:        rdata_d = {31'd0, resetting_q};
      kite_pkg::REG_DEV_STATUS:      rdata_d = {29'd0, dev_status_i};
      kite_pkg::REG_HEALTH_SYNDROME: rdata_d = health_syndrome_i;
      kite_pkg::REG_HEARTBEAT:       rdata_d = heartbeat_i;
      kite_pkg::REG_CMDQ_BASE_LO:    rdata_d = base_lo_q;
      kite_pkg::REG_CMDQ_BASE_HI:    rdata_d = base_hi_q;
      kite_pkg::REG_CMDQ_LOG_SIZE:   rdata_d = {28'd0, log_size_q};
      kite_pkg::REG_CMDQ_PI:         rdata_d = {16'd0, pi_q};
      kite_pkg::REG_CMDQ_CI:         rdata_d = {16'd0, cmdq_ci_i};
      kite_pkg::REG_DB_PAGES:        rdata_d = DB_PAGES;
      kite_pkg::REG_MSIX_VECTORS:    rdata_d = MSIX_VECS;
      kite_pkg::REG_SCRATCH:         rdata_d = scratch_q;
      default:                       rdata_d = '0;
    endcase
  end

  logic [31:0] rdata_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rsp_valid_o <= 1'b0;
      rdata_q     <= '0;
      stats_q     <= 1'b0;
      stats_hi_q  <= 1'b0;
    end else begin
      rsp_valid_o <= rd;
      rdata_q     <= rdata_d;
      stats_q     <= is_stats;
      stats_hi_q  <= req_addr_i[2];
    end
  end

  assign rsp_rdata_o = !stats_q ? rdata_q : (stats_hi_q ? stats_data_i[63:32] : stats_data_i[31:0]);

  assign cmdq_base_o     = {base_hi_q, base_lo_q};
  assign cmdq_log_size_o = log_size_q;
  assign cmdq_pi_o       = pi_q;

endmodule : kite_regs
