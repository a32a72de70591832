// Control CPU core: RV32IMAC + Zicsr, machine mode only (model:
// fpga/model/cpu/rv32.hpp, which the testbench runs beside it).
//
// It runs the firmware (firmware/src/fw.cpp through firmware/rv32/
// hal_mmio.cpp): command queues, context setup, statistics. That work is a
// few thousand instructions per driver command, so the core is multi-cycle
// and small rather than fast: fetch one or two 16-bit parcels, execute,
// then at most one data access (two for an AMO). The multiplier has a
// register on each side (DSPs); division is 32 one-bit steps.
//
// No interrupts: the firmware polls. Traps are precise (mepc, mcause,
// mtval, mstatus.MIE/MPIE, direct mtvec); misaligned data accesses trap
// rather than split, which gcc never emits for rv32imac.
//
// Memory bus: a request (address word aligned, byte enables for the size)
// holds until ack_i, which may come in the same cycle; err_i with ack_i
// is an access fault. The retire port reports every instruction and trap
// one cycle after it completes, for the testbench and a trace buffer.
module kite_cpu #(
  parameter logic [31:0] RESET_PC = 32'h0
) (
  input  logic        clk_i,
  input  logic        rst_ni,

  output logic        bus_req_o,
  output logic        bus_instr_o,
  output logic        bus_we_o,
  output logic [31:0] bus_addr_o,
  output logic [3:0]  bus_be_o,
  output logic [31:0] bus_wdata_o,
  input  logic        bus_ack_i,
  input  logic        bus_err_i,
  input  logic [31:0] bus_rdata_i,

  output logic        rt_valid_o,
  output logic [31:0] rt_pc_o,
  output logic [31:0] rt_insn_o,     // raw bits; a compressed one zero-extended
  output logic        rt_trap_o,
  output logic [3:0]  rt_cause_o,
  output logic [31:0] rt_tval_o,
  output logic [4:0]  rt_rd_o,       // 0: no register written
  output logic [31:0] rt_rd_val_o,
  output logic [31:0] rt_next_pc_o
);
  localparam logic [6:0] OP_LUI = 7'h37, OP_AUIPC = 7'h17, OP_JAL = 7'h6f, OP_JALR = 7'h67,
                         OP_BRANCH = 7'h63, OP_LOAD = 7'h03, OP_STORE = 7'h23, OP_IMM = 7'h13,
                         OP_OP = 7'h33, OP_MISC = 7'h0f, OP_SYSTEM = 7'h73, OP_AMO = 7'h2f;
  localparam logic [3:0] C_IFAULT = 4'd1, C_ILLEGAL = 4'd2, C_BREAK = 4'd3, C_LMIS = 4'd4,
                         C_LFAULT = 4'd5, C_SMIS = 4'd6, C_SFAULT = 4'd7, C_ECALL = 4'd11;

  typedef enum logic [2:0] {S_FETCH, S_FETCH2, S_EXEC, S_MEM, S_AMOW, S_MUL, S_DIV, S_MDW} state_e;
  state_e st_q;

  logic [31:0] pc_q, raw_q, ir_q;
  logic        isc_q, cill_q;

  // --- RV32C expansion, done when the parcel arrives -------------------
  logic [15:0] c;
  logic [31:0] cx;
  logic        cill;
  logic [4:0]  c_rd, c_rs2, c_rdp, c_rs1p, c_rs2p;
  logic [11:0] c_imm6, c_lw, c_lwsp, c_swsp, c_a4s, c_a16;
  logic [20:1] c_j;
  logic [12:1] c_b;
  always_comb begin
    c_rd   = c[11:7];
    c_rs2  = c[6:2];
    c_rdp  = {2'b01, c[4:2]};
    c_rs1p = {2'b01, c[9:7]};
    c_rs2p = {2'b01, c[4:2]};
    c_imm6 = {{6{c[12]}}, c[12], c[6:2]};
    c_lw   = {5'b0, c[5], c[12:10], c[6], 2'b00};
    c_lwsp = {4'b0, c[3:2], c[12], c[6:4], 2'b00};
    c_swsp = {4'b0, c[8:7], c[12:9], 2'b00};
    c_a4s  = {2'b0, c[10:7], c[12:11], c[5], c[6], 2'b00};
    c_a16  = {{2{c[12]}}, c[12], c[4:3], c[5], c[2], c[6], 4'b0};
    c_j    = {{9{c[12]}}, c[12], c[8], c[10:9], c[6], c[7], c[2], c[11], c[5:3]};
    c_b    = {{4{c[12]}}, c[12], c[6:5], c[2], c[11:10], c[4:3]};
    cx   = 32'h0;
    cill = 1'b0;
    unique case ({c[1:0], c[15:13]})
      5'b00_000: begin  // C.ADDI4SPN
        cx = {c_a4s, 5'd2, 3'b000, c_rdp, OP_IMM};
        cill = c_a4s == 12'h0;
      end
      5'b00_010: cx = {c_lw, c_rs1p, 3'b010, c_rdp, OP_LOAD};                       // C.LW
      5'b00_110: cx = {c_lw[11:5], c_rs2p, c_rs1p, 3'b010, c_lw[4:0], OP_STORE};    // C.SW
      5'b01_000: cx = {c_imm6, c_rd, 3'b000, c_rd, OP_IMM};                         // C.ADDI
      5'b01_001, 5'b01_101:                                                          // C.JAL, C.J
        cx = {c_j[20], c_j[10:1], c_j[11], c_j[19:12], c[15] ? 5'd0 : 5'd1, OP_JAL};
      5'b01_010: cx = {c_imm6, 5'd0, 3'b000, c_rd, OP_IMM};                          // C.LI
      5'b01_011: begin
        if (c_rd == 5'd2) begin                                                      // C.ADDI16SP
          cx = {c_a16, 5'd2, 3'b000, 5'd2, OP_IMM};
          cill = c_a16 == 12'h0;
        end else begin                                                               // C.LUI
          cx = {{14{c[12]}}, c[12], c[6:2], c_rd, OP_LUI};
          cill = {c[12], c[6:2]} == 6'h0;
        end
      end
      5'b01_100: begin
        unique case (c[11:10])
          2'b00: begin cx = {7'h00, c[6:2], c_rs1p, 3'b101, c_rs1p, OP_IMM}; cill = c[12]; end  // C.SRLI
          2'b01: begin cx = {7'h20, c[6:2], c_rs1p, 3'b101, c_rs1p, OP_IMM}; cill = c[12]; end  // C.SRAI
          2'b10: cx = {c_imm6, c_rs1p, 3'b111, c_rs1p, OP_IMM};                                // C.ANDI
          default: begin
            cill = c[12];                                                            // SUBW/ADDW
            unique case (c[6:5])
              2'b00: cx = {7'h20, c_rs2p, c_rs1p, 3'b000, c_rs1p, OP_OP};
              2'b01: cx = {7'h00, c_rs2p, c_rs1p, 3'b100, c_rs1p, OP_OP};
              2'b10: cx = {7'h00, c_rs2p, c_rs1p, 3'b110, c_rs1p, OP_OP};
              default: cx = {7'h00, c_rs2p, c_rs1p, 3'b111, c_rs1p, OP_OP};
            endcase
          end
        endcase
      end
      5'b01_110, 5'b01_111:                                                          // C.BEQZ, C.BNEZ
        cx = {c_b[12], c_b[10:5], 5'd0, c_rs1p, 2'b00, c[13], c_b[4:1], c_b[11], OP_BRANCH};
      5'b10_000: begin cx = {7'h00, c[6:2], c_rd, 3'b001, c_rd, OP_IMM}; cill = c[12]; end    // C.SLLI
      5'b10_010: begin cx = {c_lwsp, 5'd2, 3'b010, c_rd, OP_LOAD}; cill = c_rd == 5'd0; end   // C.LWSP
      5'b10_100: begin
        if (!c[12]) begin
          if (c_rs2 == 5'd0) begin cx = {12'h0, c_rd, 3'b000, 5'd0, OP_JALR}; cill = c_rd == 5'd0; end  // C.JR
          else cx = {7'h00, c_rs2, 5'd0, 3'b000, c_rd, OP_OP};                                        // C.MV
        end else if (c_rs2 == 5'd0) begin
          if (c_rd == 5'd0) cx = 32'h0010_0073;                                        // C.EBREAK
          else cx = {12'h0, c_rd, 3'b000, 5'd1, OP_JALR};                              // C.JALR
        end else cx = {7'h00, c_rs2, c_rd, 3'b000, c_rd, OP_OP};                       // C.ADD
      end
      5'b10_110: cx = {c_swsp[11:5], c_rs2, 5'd2, 3'b010, c_swsp[4:0], OP_STORE};    // C.SWSP
      default: cill = 1'b1;                                                           // FP, reserved
    endcase
  end

  // --- Fetch ------------------------------------------------------------
  logic [15:0] parcel;
  assign parcel = pc_q[1] ? bus_rdata_i[31:16] : bus_rdata_i[15:0];
  assign c = parcel;

  // --- Decode and execute (S_EXEC) --------------------------------------
  logic [31:0] rf [32];
  initial for (int i = 0; i < 32; i++) rf[i] = 32'h0;  // the configured state; x0 is never written

  logic [6:0]  opc;
  logic [4:0]  rd, rs1, rs2, f5;
  logic [2:0]  f3;
  logic [6:0]  f7;
  logic [31:0] a, b, imm_i, imm_s, imm_b, imm_u, imm_j, pc_seq;
  assign opc = ir_q[6:0];
  assign rd  = ir_q[11:7];
  assign f3  = ir_q[14:12];
  assign rs1 = ir_q[19:15];
  assign rs2 = ir_q[24:20];
  assign f7  = ir_q[31:25];
  assign f5  = ir_q[31:27];
  assign a   = rf[rs1];
  assign b   = rf[rs2];
  assign imm_i = {{20{ir_q[31]}}, ir_q[31:20]};
  assign imm_s = {{20{ir_q[31]}}, ir_q[31:25], ir_q[11:7]};
  assign imm_b = {{19{ir_q[31]}}, ir_q[31], ir_q[7], ir_q[30:25], ir_q[11:8], 1'b0};
  assign imm_u = {ir_q[31:12], 12'h0};
  assign imm_j = {{11{ir_q[31]}}, ir_q[31], ir_q[19:12], ir_q[20], ir_q[30:21], 1'b0};
  assign pc_seq = pc_q + (isc_q ? 32'd2 : 32'd4);

  logic [31:0] op2, alu, sra;
  assign op2 = opc == OP_OP ? b : imm_i;
  assign sra = $signed(a) >>> op2[4:0];   // alone: inside ?: the unsigned arm would make it logical
  always_comb begin
    unique case (f3)
      3'd0: alu = (opc == OP_OP && f7[5]) ? a - op2 : a + op2;
      3'd1: alu = a << op2[4:0];
      3'd2: alu = {31'h0, $signed(a) < $signed(op2)};
      3'd3: alu = {31'h0, a < op2};
      3'd4: alu = a ^ op2;
      3'd5: alu = f7[5] ? sra : a >> op2[4:0];
      3'd6: alu = a | op2;
      default: alu = a & op2;
    endcase
  end

  logic taken;
  always_comb begin
    unique case (f3)
      3'd0: taken = a == b;
      3'd1: taken = a != b;
      3'd4: taken = $signed(a) < $signed(b);
      3'd5: taken = $signed(a) >= $signed(b);
      3'd6: taken = a < b;
      default: taken = a >= b;
    endcase
  end

  // CSRs
  logic        mie_q, mpie_q;
  logic [31:0] mtvec_q, mscratch_q, mepc_q, mcause_q, mtval_q;
  logic [63:0] mcycle_q, minstret_q;
  logic        resv_q;
  logic [31:0] resv_addr_q;

  logic [11:0] csr;
  logic        csr_ex, csr_wr;
  logic [31:0] csr_rd, csr_src, csr_new;
  assign csr = ir_q[31:20];
  always_comb begin
    csr_ex = 1'b1;
    unique case (csr)
      12'h300: csr_rd = {19'h0, 2'b11, 3'h0, mpie_q, 3'h0, mie_q, 3'h0};
      12'h301: csr_rd = 32'h4000_1105;   // MXL 32, A C I M
      12'h304, 12'h344, 12'hf11, 12'hf12, 12'hf13, 12'hf14: csr_rd = 32'h0;
      12'h305: csr_rd = mtvec_q;
      12'h340: csr_rd = mscratch_q;
      12'h341: csr_rd = mepc_q;
      12'h342: csr_rd = mcause_q;
      12'h343: csr_rd = mtval_q;
      12'hb00, 12'hc00: csr_rd = mcycle_q[31:0];
      12'hb80, 12'hc80: csr_rd = mcycle_q[63:32];
      12'hb02, 12'hc02: csr_rd = minstret_q[31:0];
      12'hb82, 12'hc82: csr_rd = minstret_q[63:32];
      default: begin csr_rd = 32'h0; csr_ex = 1'b0; end
    endcase
    csr_wr  = f3[1:0] == 2'b01 || rs1 != 5'd0;
    csr_src = f3[2] ? {27'h0, rs1} : a;
    unique case (f3[1:0])
      2'b01: csr_new = csr_src;
      2'b10: csr_new = csr_rd | csr_src;
      default: csr_new = csr_rd & ~csr_src;
    endcase
  end

  // Legality of the (expanded) instruction.
  logic legal, is_lr, is_sc;
  assign is_lr = opc == OP_AMO && f5 == 5'b00010;
  assign is_sc = opc == OP_AMO && f5 == 5'b00011;
  always_comb begin
    unique case (opc)
      OP_LUI, OP_AUIPC, OP_JAL: legal = 1'b1;
      OP_JALR:   legal = f3 == 3'd0;
      OP_BRANCH: legal = f3 != 3'd2 && f3 != 3'd3;
      OP_LOAD:   legal = f3 != 3'd3 && f3 != 3'd6 && f3 != 3'd7;
      OP_STORE:  legal = f3 < 3'd3;
      OP_IMM:    legal = f3 == 3'd1 ? f7 == 7'h00 : f3 == 3'd5 ? (f7 == 7'h00 || f7 == 7'h20) : 1'b1;
      OP_OP:     legal = f7 == 7'h00 || f7 == 7'h01 || (f7 == 7'h20 && (f3 == 3'd0 || f3 == 3'd5));
      OP_MISC:   legal = f3 == 3'd0 || f3 == 3'd1;
      OP_SYSTEM:
        if (f3 == 3'd0)
          legal = ir_q == 32'h0000_0073 || ir_q == 32'h0010_0073 || ir_q == 32'h3020_0073 ||
                  ir_q == 32'h1050_0073;
        else
          legal = f3 != 3'd4 && csr_ex && !(csr_wr && csr[11:10] == 2'b11);
      OP_AMO:
        legal = f3 == 3'd2 && (is_lr ? rs2 == 5'd0 :
                               is_sc || f5 == 5'b00001 || f5 == 5'b00000 || f5 == 5'b00100 ||
                               f5 == 5'b01100 || f5 == 5'b01000 || f5 == 5'b10000 ||
                               f5 == 5'b10100 || f5 == 5'b11000 || f5 == 5'b11100);
      default:   legal = 1'b0;
    endcase
  end

  // Data access
  logic        is_mem, is_wr;
  logic [31:0] ea;
  logic        misal;
  assign is_mem = opc == OP_LOAD || opc == OP_STORE || opc == OP_AMO;
  assign is_wr  = opc == OP_STORE || (opc == OP_AMO && !is_lr);  // faults are store/AMO faults
  assign ea     = opc == OP_AMO ? a : a + (opc == OP_STORE ? imm_s : imm_i);
  // The trap decisions read only what they need of ea, so the 32-bit add
  // is not ahead of everything an instruction's end updates: alignment
  // takes its low two bits from a 2-bit add, and SC (an AMO: no offset)
  // compares a.
  logic [1:0] ea_lo;
  assign ea_lo  = opc == OP_AMO ? a[1:0] : a[1:0] + (opc == OP_STORE ? imm_s[1:0] : imm_i[1:0]);
  assign misal  = (f3[1:0] == 2'd1 && ea_lo[0]) || (f3[1:0] == 2'd2 && ea_lo != 2'd0);

  logic [31:0] maddr_q, mdata_q, amo_old_q;
  logic [2:0]  mf3_q;
  logic [4:0]  mf5_q;
  logic        mop_ld_q, mop_st_q, mop_lr_q, mop_sc_q;  // else AMO

  logic [3:0]  be;
  always_comb begin
    unique case (mf3_q[1:0])
      2'd0: be = 4'b0001 << maddr_q[1:0];
      2'd1: be = 4'b0011 << maddr_q[1:0];
      default: be = 4'b1111;
    endcase
  end

  logic [31:0] lsh, ldv;
  assign lsh = bus_rdata_i >> {maddr_q[1:0], 3'b000};
  always_comb begin
    unique case (mf3_q)
      3'd0: ldv = {{24{lsh[7]}}, lsh[7:0]};
      3'd1: ldv = {{16{lsh[15]}}, lsh[15:0]};
      3'd4: ldv = {24'h0, lsh[7:0]};
      3'd5: ldv = {16'h0, lsh[15:0]};
      default: ldv = lsh;
    endcase
  end

  // The AMO's new value is worked out from the registered old one while
  // the write is on the bus: from the read data it put the memory's read
  // mux ahead of a 32-bit compare in one cycle.
  logic [31:0] amo_res;
  always_comb begin
    unique case (mf5_q)
      5'b00000: amo_res = amo_old_q + mdata_q;
      5'b00100: amo_res = amo_old_q ^ mdata_q;
      5'b01100: amo_res = amo_old_q & mdata_q;
      5'b01000: amo_res = amo_old_q | mdata_q;
      5'b10000: amo_res = $signed(amo_old_q) < $signed(mdata_q) ? amo_old_q : mdata_q;
      5'b10100: amo_res = $signed(amo_old_q) < $signed(mdata_q) ? mdata_q : amo_old_q;
      5'b11000: amo_res = amo_old_q < mdata_q ? amo_old_q : mdata_q;
      5'b11100: amo_res = amo_old_q < mdata_q ? mdata_q : amo_old_q;
      default:  amo_res = mdata_q;   // AMOSWAP
    endcase
  end

  // Multiply and divide
  logic signed [32:0] ma_q, mb_q;
  logic [63:0]        prod_q;
  logic signed [63:0] prod;        // the low 64 bits of the 66-bit product
  assign prod = ma_q * mb_q;
  logic [31:0]        quo_q, rem_q, dvs_q;
  logic [4:0]         cnt_q;
  logic               neg_q, negr_q, mhi_q, mdiv_q, mrem_q;
  logic [32:0]        r_sh, r_diff;
  assign r_sh   = {rem_q, quo_q[31]};
  assign r_diff = r_sh - {1'b0, dvs_q};

  logic        dsgn, dneg_a, dneg_b;
  assign dsgn   = !f3[0];
  assign dneg_a = dsgn && a[31];
  assign dneg_b = dsgn && b[31];

  logic [31:0] md_res;
  always_comb begin
    if (!mdiv_q) md_res = mhi_q ? prod_q[63:32] : prod_q[31:0];
    else if (mrem_q) md_res = negr_q ? -rem_q : rem_q;
    else md_res = neg_q ? -quo_q : quo_q;
  end

  // --- Completion: one instruction retires or traps ----------------------
  logic        fin, fin_trap, fin_mret, fin_wr_cyc, fin_wr_ins;
  logic [3:0]  fin_cause;
  logic [31:0] fin_tval, fin_val, fin_npc;
  logic [4:0]  fin_rd;

  always_comb begin
    fin = 1'b0; fin_trap = 1'b0; fin_mret = 1'b0; fin_cause = 4'd0; fin_tval = 32'h0;
    fin_rd = 5'd0; fin_val = 32'h0; fin_npc = pc_seq;
    fin_wr_cyc = 1'b0; fin_wr_ins = 1'b0;
    bus_req_o = 1'b0; bus_instr_o = 1'b0; bus_we_o = 1'b0; bus_be_o = 4'hf;
    bus_addr_o = {pc_q[31:2], 2'b00}; bus_wdata_o = 32'h0;
    unique case (st_q)
      S_FETCH: begin
        bus_req_o = 1'b1; bus_instr_o = 1'b1;
        if (bus_ack_i && bus_err_i) begin fin = 1'b1; fin_trap = 1'b1; fin_cause = C_IFAULT; fin_tval = pc_q; end
      end
      S_FETCH2: begin
        bus_req_o = 1'b1; bus_instr_o = 1'b1; bus_addr_o = {pc_q[31:2] + 30'd1, 2'b00};
        if (bus_ack_i && bus_err_i) begin fin = 1'b1; fin_trap = 1'b1; fin_cause = C_IFAULT; fin_tval = pc_q + 32'd2; end
      end
      S_EXEC: begin
        if (cill_q || !legal) begin
          fin = 1'b1; fin_trap = 1'b1; fin_cause = C_ILLEGAL; fin_tval = raw_q;
        end else begin
          unique case (opc)
            OP_LUI:    begin fin = 1'b1; fin_rd = rd; fin_val = imm_u; end
            OP_AUIPC:  begin fin = 1'b1; fin_rd = rd; fin_val = pc_q + imm_u; end
            OP_JAL:    begin fin = 1'b1; fin_rd = rd; fin_val = pc_seq; fin_npc = pc_q + imm_j; end
            OP_JALR:   begin fin = 1'b1; fin_rd = rd; fin_val = pc_seq; fin_npc = (a + imm_i) & ~32'h1; end
            OP_BRANCH: begin fin = 1'b1; if (taken) fin_npc = pc_q + imm_b; end
            OP_IMM:    begin fin = 1'b1; fin_rd = rd; fin_val = alu; end
            OP_OP:     if (f7 != 7'h01) begin fin = 1'b1; fin_rd = rd; fin_val = alu; end
                       else if (f3[2] && b == 32'h0) begin  // division by zero: no steps needed
                         fin = 1'b1; fin_rd = rd; fin_val = f3[1] ? a : 32'hffff_ffff;
                       end
            OP_MISC:   fin = 1'b1;
            OP_SYSTEM:
              if (f3 == 3'd0) begin
                fin = 1'b1;
                // The four legal encodings differ in bits 22:20: WFI 101, MRET 010, EBREAK 001, ECALL 000.
                if (ir_q[22]) ;
                else if (ir_q[21]) begin fin_mret = 1'b1; fin_npc = mepc_q; end
                else if (ir_q[20]) begin fin_trap = 1'b1; fin_cause = C_BREAK; fin_tval = pc_q; end
                else begin fin_trap = 1'b1; fin_cause = C_ECALL; end
              end else begin
                fin = 1'b1; fin_rd = rd; fin_val = csr_rd;
                fin_wr_cyc = csr_wr && (csr == 12'hb00 || csr == 12'hb80);
                fin_wr_ins = csr_wr && (csr == 12'hb02 || csr == 12'hb82);
              end
            default: ;
          endcase
          if (is_mem && misal) begin
            fin = 1'b1; fin_trap = 1'b1; fin_cause = is_wr ? C_SMIS : C_LMIS; fin_tval = ea;
          end else if (is_sc && !(resv_q && resv_addr_q == a)) begin
            fin = 1'b1; fin_rd = rd; fin_val = 32'h1;
          end
        end
      end
      S_MEM, S_AMOW: begin
        bus_req_o = 1'b1; bus_addr_o = {maddr_q[31:2], 2'b00}; bus_be_o = be;
        bus_we_o = mop_st_q || mop_sc_q || st_q == S_AMOW;
        bus_wdata_o = st_q == S_AMOW ? amo_res : mdata_q << {maddr_q[1:0], 3'b000};
        if (bus_ack_i) begin
          if (bus_err_i) begin
            fin = 1'b1; fin_trap = 1'b1; fin_tval = maddr_q;
            fin_cause = (mop_ld_q || mop_lr_q) ? C_LFAULT : C_SFAULT;
          end else if (st_q == S_AMOW) begin
            fin = 1'b1; fin_rd = rd; fin_val = amo_old_q;
          end else if (mop_ld_q || mop_lr_q) begin
            fin = 1'b1; fin_rd = rd; fin_val = ldv;
          end else if (mop_st_q || mop_sc_q) begin
            fin = 1'b1; fin_rd = mop_sc_q ? rd : 5'd0; fin_val = 32'h0;
          end
        end
      end
      S_MDW: begin fin = 1'b1; fin_rd = rd; fin_val = md_res; end
      default: ;
    endcase
    if (fin_trap) fin_rd = 5'd0;
  end

  // --- State ------------------------------------------------------------
  always_ff @(posedge clk_i) begin
    if (fin && !fin_trap && fin_rd != 5'd0) rf[fin_rd] <= fin_val;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q <= S_FETCH;
      pc_q <= RESET_PC;
      raw_q <= '0; ir_q <= '0; isc_q <= 1'b0; cill_q <= 1'b0;
      mie_q <= 1'b0; mpie_q <= 1'b0;
      mtvec_q <= '0; mscratch_q <= '0; mepc_q <= '0; mcause_q <= '0; mtval_q <= '0;
      mcycle_q <= '0; minstret_q <= '0;
      resv_q <= 1'b0; resv_addr_q <= '0;
      maddr_q <= '0; mdata_q <= '0; amo_old_q <= '0; mf3_q <= '0; mf5_q <= '0;
      mop_ld_q <= 1'b0; mop_st_q <= 1'b0; mop_lr_q <= 1'b0; mop_sc_q <= 1'b0;
      ma_q <= '0; mb_q <= '0; prod_q <= '0; quo_q <= '0; rem_q <= '0; dvs_q <= '0; cnt_q <= '0;
      neg_q <= 1'b0; negr_q <= 1'b0; mhi_q <= 1'b0; mdiv_q <= 1'b0; mrem_q <= 1'b0;
      rt_valid_o <= 1'b0; rt_pc_o <= '0; rt_insn_o <= '0; rt_trap_o <= 1'b0; rt_cause_o <= '0;
      rt_tval_o <= '0; rt_rd_o <= '0; rt_rd_val_o <= '0; rt_next_pc_o <= '0;
    end else begin
      if (!(fin && fin_wr_cyc)) mcycle_q <= mcycle_q + 64'd1;
      rt_valid_o <= 1'b0;

      unique case (st_q)
        S_FETCH: if (bus_ack_i && !bus_err_i) begin
          if (parcel[1:0] != 2'b11) begin
            raw_q <= {16'h0, parcel}; ir_q <= cx; isc_q <= 1'b1; cill_q <= cill; st_q <= S_EXEC;
          end else if (!pc_q[1]) begin
            raw_q <= bus_rdata_i; ir_q <= bus_rdata_i; isc_q <= 1'b0; cill_q <= 1'b0; st_q <= S_EXEC;
          end else begin
            raw_q <= {16'h0, parcel}; isc_q <= 1'b0; cill_q <= 1'b0; st_q <= S_FETCH2;
          end
        end
        S_FETCH2: if (bus_ack_i && !bus_err_i) begin
          raw_q[31:16] <= bus_rdata_i[15:0];
          ir_q <= {bus_rdata_i[15:0], raw_q[15:0]};
          st_q <= S_EXEC;
        end
        S_EXEC: begin
          if (!fin && is_mem) begin
            maddr_q <= ea; mdata_q <= b; mf3_q <= f3; mf5_q <= f5;
            mop_ld_q <= opc == OP_LOAD; mop_st_q <= opc == OP_STORE;
            mop_lr_q <= is_lr; mop_sc_q <= is_sc;
            if (is_sc) resv_q <= 1'b0;
            st_q <= S_MEM;
          end
          // The M unit loads its operands without waiting for fin (the
          // trap and division-by-zero decisions): an instruction that
          // finishes here goes to S_FETCH below, and nothing reads the
          // operands before the next start writes them again.
          if (opc == OP_OP && f7 == 7'h01) begin
            if (!f3[2]) begin          // MUL, MULH, MULHSU, MULHU
              ma_q <= {(f3 == 3'd1 || f3 == 3'd2) && a[31], a};
              mb_q <= {f3 == 3'd1 && b[31], b};
              mhi_q <= f3 != 3'd0; mdiv_q <= 1'b0;
              st_q <= S_MUL;
            end else begin             // DIV, DIVU, REM, REMU
              quo_q <= dneg_a ? -a : a;
              dvs_q <= dneg_b ? -b : b;
              rem_q <= '0; cnt_q <= '0;
              neg_q <= dneg_a ^ dneg_b; negr_q <= dneg_a;
              mdiv_q <= 1'b1; mrem_q <= f3[1];
              st_q <= S_DIV;
            end
          end
        end
        S_MEM: if (bus_ack_i && !bus_err_i && !(mop_ld_q || mop_st_q || mop_lr_q || mop_sc_q)) begin
          amo_old_q <= bus_rdata_i; st_q <= S_AMOW;
        end
        S_MUL: begin prod_q <= prod; st_q <= S_MDW; end
        S_DIV: begin
          if (!r_diff[32]) begin rem_q <= r_diff[31:0]; quo_q <= {quo_q[30:0], 1'b1}; end
          else begin rem_q <= r_sh[31:0]; quo_q <= {quo_q[30:0], 1'b0}; end
          cnt_q <= cnt_q + 5'd1;
          if (cnt_q == 5'd31) st_q <= S_MDW;
        end
        default: ;
      endcase

      if (fin) begin
        st_q <= S_FETCH;
        if (fin_trap) begin
          mepc_q <= pc_q; mcause_q <= {28'h0, fin_cause}; mtval_q <= fin_tval;
          mpie_q <= mie_q; mie_q <= 1'b0;
          pc_q <= mtvec_q;
        end else begin
          pc_q <= fin_npc;
          if (!fin_wr_ins) minstret_q <= minstret_q + 64'd1;
          if (fin_mret) begin mie_q <= mpie_q; mpie_q <= 1'b1; end
          if (st_q == S_MEM && mop_lr_q) begin resv_q <= 1'b1; resv_addr_q <= maddr_q; end
          if (st_q == S_EXEC && is_sc) resv_q <= 1'b0;   // failed SC
          if (st_q == S_EXEC && opc == OP_SYSTEM && f3 != 3'd0 && csr_wr) begin
            unique case (csr)
              12'h300: begin mie_q <= csr_new[3]; mpie_q <= csr_new[7]; end
              12'h305: mtvec_q <= {csr_new[31:2], 2'b00};
              12'h340: mscratch_q <= csr_new;
              12'h341: mepc_q <= {csr_new[31:1], 1'b0};
              12'h342: mcause_q <= csr_new;
              12'h343: mtval_q <= csr_new;
              12'hb00: mcycle_q[31:0] <= csr_new;
              12'hb80: mcycle_q[63:32] <= csr_new;
              12'hb02: minstret_q[31:0] <= csr_new;
              12'hb82: minstret_q[63:32] <= csr_new;
              default: ;
            endcase
          end
        end
        rt_valid_o <= 1'b1;
        rt_pc_o <= pc_q;
        rt_insn_o <= (st_q == S_FETCH || st_q == S_FETCH2) ? 32'h0 : raw_q;
        rt_trap_o <= fin_trap;
        rt_cause_o <= fin_cause;
        rt_tval_o <= fin_tval;
        rt_rd_o <= fin_rd;
        rt_rd_val_o <= fin_rd != 5'd0 ? fin_val : 32'h0;
        rt_next_pc_o <= fin_trap ? mtvec_q : fin_npc;
      end
    end
  end
endmodule
