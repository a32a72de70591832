// RX steering: the receive filter and the ntuple flow rules of the model's
// RxPipeline (fpga/model/rxp/steer.hpp: filter_accepts, flow_match), between
// kite_rxp and kite_rss. Tables per port (the RTL card has the PF only):
//   rx_mode (PROMISC, ALLMULTI, VLAN_FILTER, BROADCAST), the permanent MAC,
//   NUC unicast and NMC multicast entries, a 4096-bit VLAN bitmap and NRULE
//   exact-match rules (lowest matching slot wins).
// Per frame (its kite_rxp record, port and destination MAC), one verdict:
//   drop          the filter rejects it (drop_flow 0: rx_filtered), or the
//                 first matching rule's action is 2 (drop_flow 1:
//                 rx_flow_drop);
//   to_rq / rq    action 0: the rule's RQ instead of RSS;
//   rss_ctx       action 1: the rule's RSS context, else 0;
//   mcast, bcast  destination class (rx_multicast / rx_broadcast count
//                 delivered frames only: the counters decide).
// The tag travels with the frame unchanged.
//
// One frame per cycle: stage A compares the address against every filter
// entry and the flow key against every rule of both ports in parallel and
// reads the VLAN bitmap word (RAM); stage B picks the port, applies the
// filter and the lowest matching rule and registers the verdict.
//
// Config port (the firmware's FILTER / FLOW context writes), 64-bit words
// of the table of port cfg_port_i; MACs in wire order (byte 0 in [7:0]),
// IP addresses as kite_rxp gives them (byte 0 in the top byte):
//   0x000          [3:0] rx_mode flags (kite_pkg::rx_mode_in_t order)
//   0x001          [47:0] permanent MAC
//   0x040 + i      unicast entry i: [48] valid, [47:0] MAC
//   0x080 + i      multicast entry i: [48] valid, [47:0] MAC
//   0x0c0 + w      VLAN bitmap, VIDs 64w .. 64w+63
//   0x200 + 8r + k rule r: k=0 [0] valid, [1] IPv6, [2] match src IP,
//                  [3] match dst IP, [4] match src port, [5] match dst
//                  port, [7:6] action, [15:8] L4 protocol, [31:16] src
//                  port, [47:32] dst port, [51:48] RSS context; k=1 [15:0]
//                  RQ; k=2,3 src IP [127:64], [63:0]; k=4,5 dst IP
// Writes elsewhere are ignored and pulse cfg_bad_o.
module kite_rx_steer #(
  parameter int unsigned NPORT = 2,
  parameter int unsigned NUC   = 16,
  parameter int unsigned NMC   = 64,
  parameter int unsigned NRULE = 64,
  parameter int unsigned TAG_W = 8
) (
  input  logic                      clk_i,
  input  logic                      rst_ni,

  input  logic                      cfg_we_i,
  input  logic [$clog2(NPORT)-1:0]  cfg_port_i,
  input  logic [9:0]                cfg_addr_i,
  input  logic [63:0]               cfg_wdata_i,
  output logic                      cfg_bad_o,

  input  logic                      s_valid_i,
  output logic                      s_ready_o,
  input  logic [$clog2(NPORT)-1:0]  s_port_i,
  input  logic [47:0]               s_da_i,          // destination MAC, byte 0 in [7:0]
  input  logic [1:0]                s_num_vlans_i,
  input  logic [15:0]               s_tci_i,         // outer tag
  input  logic [1:0]                s_l3_i,          // kite_rtl_pkg::l3_type_e
  input  logic [1:0]                s_l4_i,          // kite_rtl_pkg::l4_type_e
  input  logic [7:0]                s_l4_proto_i,
  input  logic                      s_ip_frag_i,
  input  logic                      s_malformed_i,
  input  logic [127:0]              s_src_ip_i,      // IPv4 in [31:0]
  input  logic [127:0]              s_dst_ip_i,
  input  logic [15:0]               s_sport_i,
  input  logic [15:0]               s_dport_i,
  input  logic [TAG_W-1:0]          s_tag_i,

  output logic                      m_valid_o,
  input  logic                      m_ready_i,
  output logic [TAG_W-1:0]          m_tag_o,
  output logic                      m_drop_o,
  output logic                      m_drop_flow_o,
  output logic                      m_to_rq_o,
  output logic [15:0]               m_rq_o,
  output logic [3:0]                m_rss_ctx_o,
  output logic                      m_mcast_o,
  output logic                      m_bcast_o
);
  localparam int unsigned PW = NPORT > 1 ? $clog2(NPORT) : 1;
  localparam int unsigned RW = $clog2(NRULE);
  localparam int unsigned UW = $clog2(NUC);
  localparam int unsigned MW = $clog2(NMC);

  // ------------------------------------------------------------- tables
  logic [3:0]        mode_q  [NPORT];
  logic [47:0]       perm_q  [NPORT];
  logic [NUC-1:0]    uc_v_q  [NPORT];
  logic [47:0]       uc_q    [NPORT][NUC];
  logic [NMC-1:0]    mc_v_q  [NPORT];
  logic [47:0]       mc_q    [NPORT][NMC];
  logic [63:0]       vlan_mem [NPORT*64];
  logic [NRULE-1:0]  r_v_q   [NPORT];
  logic [5:0]        r_flg_q [NPORT][NRULE];   // IPv6, match src/dst IP, src/dst port, -
  logic [1:0]        r_act_q [NPORT][NRULE];
  logic [7:0]        r_pro_q [NPORT][NRULE];
  logic [15:0]       r_sp_q  [NPORT][NRULE];
  logic [15:0]       r_dp_q  [NPORT][NRULE];
  logic [3:0]        r_ctx_q [NPORT][NRULE];
  logic [15:0]       r_rq_q  [NPORT][NRULE];
  logic [127:0]      r_sip_q [NPORT][NRULE];
  logic [127:0]      r_dip_q [NPORT][NRULE];

  logic          c_mode, c_perm, c_uc, c_mc, c_vlan, c_rule, c_ok;
  logic [RW-1:0] c_r;
  logic [2:0]    c_k;
  assign c_mode = cfg_addr_i == 10'h000;
  assign c_perm = cfg_addr_i == 10'h001;
  assign c_uc   = cfg_addr_i[9:6] == 4'h1 && 32'(cfg_addr_i[5:0]) < NUC;
  assign c_mc   = cfg_addr_i[9:6] == 4'h2 && 32'(cfg_addr_i[5:0]) < NMC;
  assign c_vlan = cfg_addr_i[9:6] == 4'h3;
  assign c_r    = RW'(cfg_addr_i[8:3]);
  assign c_k    = cfg_addr_i[2:0];
  assign c_rule = cfg_addr_i[9] && 32'(cfg_addr_i[8:3]) < NRULE && c_k < 3'd6;
  assign c_ok   = c_mode || c_perm || c_uc || c_mc || c_vlan || c_rule;
  assign cfg_bad_o = cfg_we_i && (!c_ok || 32'(cfg_port_i) >= NPORT);

  // Valid bits, mode and the permanent MAC reset (an empty table accepts
  // nothing but the all-zero permanent MAC, as the model's zeroed context).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int p = 0; p < NPORT; p++) begin
        mode_q[p] <= '0;
        perm_q[p] <= '0;
        uc_v_q[p] <= '0;
        mc_v_q[p] <= '0;
        r_v_q[p]  <= '0;
      end
    end else if (cfg_we_i && !cfg_bad_o) begin
      if (c_mode) mode_q[cfg_port_i] <= cfg_wdata_i[3:0];
      if (c_perm) perm_q[cfg_port_i] <= cfg_wdata_i[47:0];
      if (c_uc) uc_v_q[cfg_port_i][UW'(cfg_addr_i[5:0])] <= cfg_wdata_i[48];
      if (c_mc) mc_v_q[cfg_port_i][MW'(cfg_addr_i[5:0])] <= cfg_wdata_i[48];
      if (c_rule && c_k == 3'd0) r_v_q[cfg_port_i][c_r] <= cfg_wdata_i[0];
    end
  end

  always_ff @(posedge clk_i) begin
    if (cfg_we_i && !cfg_bad_o) begin
      if (c_uc) uc_q[cfg_port_i][UW'(cfg_addr_i[5:0])] <= cfg_wdata_i[47:0];
      if (c_mc) mc_q[cfg_port_i][MW'(cfg_addr_i[5:0])] <= cfg_wdata_i[47:0];
      if (c_vlan) vlan_mem[{cfg_port_i, cfg_addr_i[5:0]}] <= cfg_wdata_i;
      if (c_rule) begin
        unique case (c_k)
          3'd0: begin
            r_flg_q[cfg_port_i][c_r] <= {1'b0, cfg_wdata_i[5:1]};
            r_act_q[cfg_port_i][c_r] <= cfg_wdata_i[7:6];
            r_pro_q[cfg_port_i][c_r] <= cfg_wdata_i[15:8];
            r_sp_q[cfg_port_i][c_r]  <= cfg_wdata_i[31:16];
            r_dp_q[cfg_port_i][c_r]  <= cfg_wdata_i[47:32];
            r_ctx_q[cfg_port_i][c_r] <= cfg_wdata_i[51:48];
          end
          3'd1: r_rq_q[cfg_port_i][c_r] <= cfg_wdata_i[15:0];
          3'd2: r_sip_q[cfg_port_i][c_r][127:64] <= cfg_wdata_i;
          3'd3: r_sip_q[cfg_port_i][c_r][63:0] <= cfg_wdata_i;
          3'd4: r_dip_q[cfg_port_i][c_r][127:64] <= cfg_wdata_i;
          default: r_dip_q[cfg_port_i][c_r][63:0] <= cfg_wdata_i;
        endcase
      end
    end
  end

  // ------------------------------------------------------------ stage A
  logic a_en, b_en, a_v_q, b_v_q;
  assign b_en      = !b_v_q || m_ready_i;
  assign a_en      = !a_v_q || b_en;
  assign s_ready_o = a_en;

  // Flow key: IPv4 addresses IPv4-mapped (::ffff:a.b.c.d), as the model.
  logic         k_v6, k_elig;
  logic [127:0] k_sip, k_dip;
  assign k_v6   = s_l3_i == kite_rtl_pkg::L3_IPV6;
  assign k_elig = !s_malformed_i && !s_ip_frag_i &&
                  (s_l4_i == kite_rtl_pkg::L4_TCP || s_l4_i == kite_rtl_pkg::L4_UDP);
  assign k_sip  = k_v6 ? s_src_ip_i : {80'd0, 16'hffff, s_src_ip_i[31:0]};
  assign k_dip  = k_v6 ? s_dst_ip_i : {80'd0, 16'hffff, s_dst_ip_i[31:0]};

  logic [NPORT-1:0] uc_hit, mc_hit;
  logic [NRULE-1:0] rm [NPORT];
  always_comb begin
    for (int p = 0; p < NPORT; p++) begin
      uc_hit[p] = s_da_i == perm_q[p];
      for (int i = 0; i < NUC; i++) if (uc_v_q[p][i] && s_da_i == uc_q[p][i]) uc_hit[p] = 1'b1;
      mc_hit[p] = 1'b0;
      for (int i = 0; i < NMC; i++) if (mc_v_q[p][i] && s_da_i == mc_q[p][i]) mc_hit[p] = 1'b1;
      for (int r = 0; r < NRULE; r++) begin
        rm[p][r] = k_elig && r_v_q[p][r] && r_pro_q[p][r] == s_l4_proto_i && r_flg_q[p][r][0] == k_v6 &&
                   (!r_flg_q[p][r][1] || r_sip_q[p][r] == k_sip) &&
                   (!r_flg_q[p][r][2] || r_dip_q[p][r] == k_dip) &&
                   (!r_flg_q[p][r][3] || r_sp_q[p][r] == s_sport_i) &&
                   (!r_flg_q[p][r][4] || r_dp_q[p][r] == s_dport_i);
      end
    end
  end

  logic [PW-1:0]    a_port_q;
  logic [TAG_W-1:0] a_tag_q;
  logic             a_bc_q, a_mc_q, a_uc_hit_q, a_mc_hit_q, a_vchk_q;
  logic [5:0]       a_vbit_q;
  logic [63:0]      a_vword_q;
  logic [NRULE-1:0] a_rm_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) a_v_q <= 1'b0;
    else if (a_en) a_v_q <= s_valid_i;
  end
  always_ff @(posedge clk_i) begin
    if (a_en && s_valid_i) begin
      a_port_q   <= PW'(s_port_i);
      a_tag_q    <= s_tag_i;
      a_bc_q     <= s_da_i == 48'hffff_ffff_ffff;
      a_mc_q     <= s_da_i[0];
      a_uc_hit_q <= uc_hit[s_port_i];
      a_mc_hit_q <= mc_hit[s_port_i];
      a_vchk_q   <= s_num_vlans_i != 2'd0 && s_tci_i[11:0] != 12'd0;
      a_vbit_q   <= s_tci_i[5:0];
      a_vword_q  <= vlan_mem[{s_port_i, s_tci_i[11:6]}];
      a_rm_q     <= rm[s_port_i];
    end
  end

  // ------------------------------------------------------------ stage B
  logic [3:0]    md;
  logic          accept, hit;
  logic [RW-1:0] first;
  assign md = mode_q[a_port_q];
  // rx_mode bits: 0 PROMISC, 1 ALLMULTI, 2 VLAN_FILTER, 3 BROADCAST.
  always_comb begin
    if (md[0]) accept = 1'b1;
    else if (a_vchk_q && md[2] && !a_vword_q[a_vbit_q]) accept = 1'b0;
    else if (a_bc_q) accept = md[3];
    else if (a_mc_q) accept = md[1] || a_mc_hit_q;
    else accept = a_uc_hit_q;
  end
  // The first matching rule: a priority tree (kite_rr_pick with a fixed
  // start), not a loop whose carried choice is a chain 64 rules long.
  kite_rr_pick #(.N(NRULE)) u_first (.req_i(a_rm_q), .last_i('1), .valid_o(hit), .idx_o(first));

  logic [1:0] act;
  assign act = r_act_q[a_port_q][first];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) b_v_q <= 1'b0;
    else if (b_en) b_v_q <= a_v_q;
  end
  always_ff @(posedge clk_i) begin
    if (b_en && a_v_q) begin
      m_tag_o       <= a_tag_q;
      m_drop_o      <= !accept || (hit && act == 2'd2);
      m_drop_flow_o <= accept && hit && act == 2'd2;
      m_to_rq_o     <= hit && act == 2'd0;
      m_rq_o        <= r_rq_q[a_port_q][first];
      m_rss_ctx_o   <= hit && act == 2'd1 ? r_ctx_q[a_port_q][first] : 4'd0;
      m_mcast_o     <= a_mc_q && !a_bc_q;
      m_bcast_o     <= a_bc_q;
    end
  end
  assign m_valid_o = b_v_q;

  logic unused;
  assign unused = ^{s_tci_i[15:12], r_flg_q[0][0][5]};

endmodule : kite_rx_steer
