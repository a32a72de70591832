// Doorbell decode: BAR2 (DB_BAR) writes of every function, one per cycle,
// split into queue events as the model's kite::model::Doorbells::write
// (fpga/model/doorbell/doorbell.cpp).
//
// A write is (function, offset in that function's BAR2, size, 32-bit data).
// Page = offset / DB_PAGE_SIZE, register = offset % DB_PAGE_SIZE, value =
// (qn << 16) | index. Checks made here, without any queue context:
//   * size 4 and page < the function's doorbell page count (fn table)
//   * register SQ / RQ with 0 < qn < NQ -> SQ/RQ event (the queue manager
//     checks owner, page binding, state and the index window)
//   * register CQ_CI / CQ_ARM / CQ_ARM_SOLICITED / EQ_CI / EQ_ARM with qn != 0
//     -> CQ/EQ event (the CQ/EQ block holds those contexts and checks them)
//   * anything else (PUSH: CAPS.PUSH_WQE is 0; unknown or unaligned
//     registers) is dropped.
// Drops are counted per port (port_stats.db_dropped of the function's port),
// including the ones the queue manager and the CQ/EQ block report back.
//
// Function table port: fn_we_i writes the doorbell page count (0: function
// disabled, every doorbell dropped) and port of function fn_sel_i.
module kite_doorbell #(
  parameter int unsigned NFN   = 17,   // PF + MAX_VFS
  parameter int unsigned FN_W  = 5,
  parameter int unsigned NQ    = 512,  // SQ/RQ contexts (queue numbers 1..NQ-1)
  parameter int unsigned NPORT = 2
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,

  input  logic                   fn_we_i,
  input  logic [FN_W-1:0]        fn_sel_i,
  input  logic [8:0]             fn_db_pages_i,   // 0..256
  input  logic [$clog2(NPORT)-1:0] fn_port_i,

  // BAR2 write from the PCIe adapter.
  input  logic                   db_valid_i,
  output logic                   db_ready_o,
  input  logic [FN_W-1:0]        db_fn_i,
  input  logic [19:0]            db_off_i,        // PF BAR2 is 1 MiB
  input  logic [3:0]             db_size_i,       // bytes written (1, 2, 4, 8)
  input  logic [31:0]            db_data_i,
  input  logic                   stall_i,         // queue manager: hold new writes

  // SQ/RQ doorbell to the queue manager (no back-pressure: one per cycle).
  output logic                   wq_valid_o,
  output logic                   wq_rq_o,
  output logic [$clog2(NQ)-1:0]  wq_qn_o,
  output logic [15:0]            wq_idx_o,
  output logic [FN_W-1:0]        wq_fn_o,
  output logic [7:0]             wq_page_o,

  // CQ/EQ doorbell to the CQ/EQ block: reg is the db register offset / 4
  // (2 CQ_CI, 3 CQ_ARM, 4 CQ_ARM_SOLICITED, 5 EQ_CI, 6 EQ_ARM).
  output logic                   ce_valid_o,
  output logic [2:0]             ce_reg_o,
  output logic [15:0]            ce_qn_o,
  output logic [15:0]            ce_idx_o,
  output logic [FN_W-1:0]        ce_fn_o,
  output logic [7:0]             ce_page_o,

  // Drops found by the queue manager and by the CQ/EQ block.
  input  logic                   qm_drop_i,
  input  logic [FN_W-1:0]        qm_drop_fn_i,
  input  logic                   ce_drop_i,
  input  logic [FN_W-1:0]        ce_drop_fn_i,

  output logic [NPORT*64-1:0]    db_dropped_o     // port p at [64p +: 64]
);

  localparam int unsigned QN_W = $clog2(NQ);
  localparam int unsigned PW   = $clog2(NPORT);

  logic [8:0]    pages_q [NFN];
  logic [PW-1:0] port_q  [NFN];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int f = 0; f < NFN; f++) begin
        pages_q[f] <= '0;
        port_q[f]  <= '0;
      end
    end else if (fn_we_i && 32'(fn_sel_i) < NFN) begin
      pages_q[fn_sel_i] <= fn_db_pages_i;
      port_q[fn_sel_i]  <= fn_port_i;
    end
  end

  // ---------------------------------------------------------------- decode
  assign db_ready_o = !stall_i;
  logic take;
  assign take = db_valid_i && db_ready_o;

  logic        fn_ok;
  logic [8:0]  fn_pages;
  logic [7:0]  page;
  logic [11:0] rgo;
  logic [15:0] qn;
  logic        is_wq, is_ce, drop;
  assign fn_ok    = 32'(db_fn_i) < NFN;
  assign fn_pages = fn_ok ? pages_q[db_fn_i] : 9'd0;
  assign page     = db_off_i[19:12];
  assign rgo      = db_off_i[11:0];
  assign qn       = db_data_i[31:16];

  always_comb begin
    is_wq = 1'b0;
    is_ce = 1'b0;
    if (db_size_i == 4'd4 && {1'b0, page} < fn_pages && qn != 16'd0) begin
      case (rgo)
        12'h000, 12'h004: is_wq = 32'(qn) < NQ;
        12'h008, 12'h00c, 12'h010, 12'h014, 12'h018: is_ce = 1'b1;
        default: ;
      endcase
    end
    drop = take && !is_wq && !is_ce;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wq_valid_o <= 1'b0;
      ce_valid_o <= 1'b0;
    end else begin
      wq_valid_o <= take && is_wq;
      ce_valid_o <= take && is_ce;
    end
  end

  always_ff @(posedge clk_i) begin
    wq_rq_o   <= rgo[2];
    wq_qn_o   <= qn[QN_W-1:0];
    wq_idx_o  <= db_data_i[15:0];
    wq_fn_o   <= db_fn_i;
    wq_page_o <= page;
    ce_reg_o  <= rgo[4:2];
    ce_qn_o   <= qn;
    ce_idx_o  <= db_data_i[15:0];
    ce_fn_o   <= db_fn_i;
    ce_page_o <= page;
  end

  // ---------------------------------------------------------------- drops
  // Up to three drops a cycle; each goes to its function's port. A function
  // number beyond the table (never produced by the adapter) counts on port 0.
  logic [PW-1:0] p_db, p_qm, p_ce;
  assign p_db = fn_ok ? port_q[db_fn_i] : '0;
  assign p_qm = 32'(qm_drop_fn_i) < NFN ? port_q[qm_drop_fn_i] : '0;
  assign p_ce = 32'(ce_drop_fn_i) < NFN ? port_q[ce_drop_fn_i] : '0;

  // A cycle's drops are summed per port and registered before the 64-bit
  // add: the decode's verdict (the function's page count selected and
  // compared) and a three-input add in one cycle were the block's deepest
  // path. The count lags the write by a cycle more.
  logic [NPORT*64-1:0] cnt_q;
  logic [1:0]          inc_q [NPORT];
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cnt_q <= '0;
      for (int p = 0; p < NPORT; p++) inc_q[p] <= '0;
    end else begin
      for (int p = 0; p < NPORT; p++) begin
        inc_q[p] <= 2'(drop && p_db == PW'(p)) + 2'(qm_drop_i && p_qm == PW'(p)) +
                    2'(ce_drop_i && p_ce == PW'(p));
        cnt_q[64*p +: 64] <= cnt_q[64*p +: 64] + 64'(inc_q[p]);
      end
    end
  end
  assign db_dropped_o = cnt_q;

endmodule
