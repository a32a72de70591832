// Per-function state between the UltraScale+ PCIe integrated block
// (pcie4_uscale_plus, PG213) and the card (kite_card_sys) in the Alveo U250
// top: how many VFs the host enabled, whether it allows 8-bit read tags,
// and function level resets (FLR).
//
// NumVFs: read through the configuration management port (cfg_mgmt_*) from
// PF0's SR-IOV capability, which is PCIe-standard, rather than from the
// core's per-function status vectors, which PG213 does not document well
// enough to rely on.
// After reset the extended capability list (from byte 0x100) is walked
// until the SR-IOV capability (ID 0x0010); a walk ends at a next pointer
// below 0x100 (0 included) or after 32 headers, so a broken list cannot
// hang it, and is retried after POLL cycles. Once found, every POLL cycles
// SR-IOV Control (+0x08, bit 0 VF Enable) and NumVFs (+0x10) are read and
// num_vfs_o = VF Enable ? min(NumVFs, NVF) : 0, updated after both reads.
// NumVFs may only change while VF Enable is clear (SR-IOV, NumVFs), so the
// two reads of a round need no atomicity. The host takes VFs away by
// clearing VF Enable: num_vfs_o follows within about POLL cycles.
//
// Extended Tag Field Enable: each round first reads PF0's Device Control
// (PCI Express Capability + 0x08, bit 8) into ext_tag_o, the card's read
// tag pool (256 tags, else 32; kite_pcie_rd). The capability is found once
// by walking the standard list from the Capabilities Pointer (0x34): a walk
// ends at a next pointer below 0x40 or after 32 headers and is retried in
// the next round; until found ext_tag_o stays 0 (5-bit tags are always
// allowed). Linux sets the bit at enumeration, long before a driver starts
// DMA, and a round comes every POLL cycles (4 us), so the pool is 256 by
// the first read; a later change reaches kite_pcie_rd within a round.
//
// Each read holds cfg_mgmt_read_o (address, function 0, all byte enables)
// until cfg_mgmt_read_write_done_i, takes the data in that cycle and drops
// the request for at least one cycle before the next. Nothing is written.
//
// FLR: a rising edge of the core's in-process bit for PF0 or VF v (< NVF)
// pulses flr_o[0] / flr_o[v+1] (the card's function numbers). A bit high
// when reset ends counts as an edge: the FLR is still waiting for its done.
// The card's done pulses go back to the core: PF0's at once on
// cfg_flr_done_o[0]; VFs' share one cfg_vf_flr_func_num_o/done port, so
// they are kept as pending bits and signalled lowest first, one a cycle.
// A done arriving for the VF being signalled in the same cycle stays
// pending (set wins). PFs 1-3 and VFs >= NVF do not exist on the card.
//
// Every output is a register (or a constant).
module kite_pcie_fn #(
  parameter int unsigned NVF  = 16,    // VFs of the card: functions 1..NVF
  parameter int unsigned FN_W = 5,     // width of num_vfs_o
  parameter int unsigned POLL = 1024   // cycles between NumVFs reads
) (
  input  logic            clk_i,
  input  logic            rst_ni,

  // Configuration management interface (PG213 cfg_mgmt_*)
  output logic [9:0]      cfg_mgmt_addr_o,             // DWORD address
  output logic [7:0]      cfg_mgmt_function_number_o,
  output logic            cfg_mgmt_write_o,
  output logic [31:0]     cfg_mgmt_write_data_o,
  output logic [3:0]      cfg_mgmt_byte_enable_o,
  output logic            cfg_mgmt_read_o,             // held until done
  input  logic [31:0]     cfg_mgmt_read_data_i,
  input  logic            cfg_mgmt_read_write_done_i,

  // Function level reset (PG213)
  input  logic [3:0]      cfg_flr_in_process_i,        // per PF; PF0 only used
  output logic [3:0]      cfg_flr_done_o,
  input  logic [251:0]    cfg_vf_flr_in_process_i,     // bit v: VF v of PF0
  output logic [7:0]      cfg_vf_flr_func_num_o,
  output logic            cfg_vf_flr_done_o,

  // Card side
  output logic [FN_W-1:0] num_vfs_o,
  output logic            ext_tag_o,                   // Device Control bit 8
  output logic [NVF:0]    flr_o,                       // pulse: bit 0 PF, bit v+1 VF v
  input  logic [NVF:0]    flr_done_i                   // pulse: that function's reset done
);

  localparam logic [15:0] SRIOV_ID = 16'h0010;
  localparam logic [7:0]  PCIE_ID  = 8'h10;
  localparam logic [9:0]  EXT_CAP  = 10'h040;          // byte 0x100
  localparam logic [9:0]  CAP_PTR  = 10'h00d;          // byte 0x34
  localparam int unsigned TW       = $clog2(POLL + 1);

  // ---------------------------------------------------------------- NumVFs
  typedef enum logic [2:0] {S_PPTR, S_PWALK, S_DCTL, S_WALK, S_CTRL, S_NUM, S_WAIT} state_e;
  state_e      state_q;
  logic [9:0]  ptr_q;       // header being read (DWORD address)
  logic [9:0]  cap_q;       // SR-IOV capability; 0 until found (it is >= 0x40)
  logic [9:0]  pcap_q;      // PCI Express capability; 0 until found (>= 0x10)
  logic [5:0]  pptr_q;      // standard header being read (DWORD address)
  logic [4:0]  phdr_q;      // standard headers read in this walk, less one
  logic [4:0]  hdr_q;       // headers read in this walk, less one
  logic        vfe_q;       // VF Enable of this round
  logic [TW-1:0] timer_q;

  logic [31:0] rdata;
  logic        rdone;
  logic [5:0]  pnext;       // a standard header's next pointer, in DWORDs
  state_e      sriov_st;    // where the SR-IOV part of a round starts
  assign rdata    = cfg_mgmt_read_data_i;
  assign rdone    = cfg_mgmt_read_o && cfg_mgmt_read_write_done_i;
  assign pnext    = rdata[15:10];   // its low two bits are reserved
  assign sriov_st = cap_q != '0 ? S_CTRL : S_WALK;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q         <= S_PPTR;
      ptr_q           <= EXT_CAP;
      cap_q           <= '0;
      pcap_q          <= '0;
      pptr_q          <= '0;
      phdr_q          <= '0;
      ext_tag_o       <= 1'b0;
      hdr_q           <= '0;
      vfe_q           <= 1'b0;
      timer_q         <= '0;
      cfg_mgmt_read_o <= 1'b0;
      cfg_mgmt_addr_o <= '0;
      num_vfs_o       <= '0;
    end else if (rdone) begin
      cfg_mgmt_read_o <= 1'b0;   // low for a cycle before the next read
      unique case (state_q)
        S_PPTR: begin
          // The pointer's low two bits are reserved.
          pptr_q  <= rdata[7:2];
          phdr_q  <= '0;
          state_q <= rdata[7:6] == 2'b00 ? sriov_st : S_PWALK;   // below 0x40: no list
        end
        S_PWALK: begin
          pptr_q <= pnext;
          phdr_q <= phdr_q + 1'b1;
          if (rdata[7:0] == PCIE_ID) begin
            pcap_q  <= 10'(pptr_q);
            state_q <= S_DCTL;
          end else if (pnext[5:4] == 2'b00 || phdr_q == 5'd31) begin
            state_q <= sriov_st;   // end of list, or it loops
          end
        end
        S_DCTL: begin
          ext_tag_o <= rdata[8];
          state_q   <= sriov_st;
        end
        S_WALK: begin
          if (rdata[15:0] == SRIOV_ID) begin
            cap_q   <= ptr_q;
            state_q <= S_CTRL;
          end else if (rdata[31:28] == 4'h0 || hdr_q == 5'd31) begin
            // Next pointer below 0x100 (0: end of list), or the list loops.
            state_q <= S_WAIT;
            timer_q <= TW'(POLL - 1);
          end else begin
            ptr_q <= rdata[31:22];   // bits [21:20] of a pointer are reserved
            hdr_q <= hdr_q + 1'b1;
          end
        end
        S_CTRL: begin
          vfe_q   <= rdata[0];
          state_q <= S_NUM;
        end
        S_NUM: begin
          if (!vfe_q)                     num_vfs_o <= '0;
          else if (rdata[15:0] > 16'(NVF)) num_vfs_o <= FN_W'(NVF);
          else                            num_vfs_o <= FN_W'(rdata[15:0]);
          state_q <= S_WAIT;
          timer_q <= TW'(POLL - 1);
        end
        default: ;
      endcase
    end else if (!cfg_mgmt_read_o) begin
      if (state_q == S_WAIT) begin
        if (timer_q == '0) begin
          state_q <= pcap_q != '0 ? S_DCTL : S_PPTR;
          ptr_q   <= EXT_CAP;
          hdr_q   <= '0;
        end else begin
          timer_q <= timer_q - 1'b1;
        end
      end else begin
        cfg_mgmt_read_o <= 1'b1;
        unique case (state_q)
          S_PPTR:  cfg_mgmt_addr_o <= CAP_PTR;
          S_PWALK: cfg_mgmt_addr_o <= 10'(pptr_q);
          S_DCTL:  cfg_mgmt_addr_o <= pcap_q + 10'd2;
          S_CTRL:  cfg_mgmt_addr_o <= cap_q + 10'd2;
          S_NUM:   cfg_mgmt_addr_o <= cap_q + 10'd4;
          default: cfg_mgmt_addr_o <= ptr_q;
        endcase
      end
    end
  end

  assign cfg_mgmt_function_number_o = 8'd0;   // PF0 holds the SR-IOV capability
  assign cfg_mgmt_write_o           = 1'b0;
  assign cfg_mgmt_write_data_o      = '0;
  assign cfg_mgmt_byte_enable_o     = 4'hf;

  // ---------------------------------------------------------------- FLR
  logic           pf_flr_q;
  logic [NVF-1:0] vf_flr_q;    // in-process bits of the last cycle
  logic [NVF-1:0] pend_q;      // VF dones from the card not yet signalled
  logic [NVF-1:0] pend_low;
  logic [7:0]     pend_num;

  assign pend_low = pend_q & (~pend_q + 1'b1);
  always_comb begin
    pend_num = '0;
    for (int v = 0; v < NVF; v++) if (pend_low[v]) pend_num = 8'(v);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pf_flr_q              <= 1'b0;
      vf_flr_q              <= '0;
      flr_o                 <= '0;
      cfg_flr_done_o        <= '0;
      pend_q                <= '0;
      cfg_vf_flr_done_o     <= 1'b0;
      cfg_vf_flr_func_num_o <= '0;
    end else begin
      pf_flr_q              <= cfg_flr_in_process_i[0];
      vf_flr_q              <= cfg_vf_flr_in_process_i[NVF-1:0];
      flr_o                 <= {cfg_vf_flr_in_process_i[NVF-1:0] & ~vf_flr_q,
                                cfg_flr_in_process_i[0] & ~pf_flr_q};
      cfg_flr_done_o        <= {3'b000, flr_done_i[0]};
      pend_q                <= (pend_q & ~pend_low) | flr_done_i[NVF:1];
      cfg_vf_flr_done_o     <= pend_q != '0;
      cfg_vf_flr_func_num_o <= pend_num;
    end
  end

  logic unused_fn;
  assign unused_fn = ^{cfg_flr_in_process_i[3:1], cfg_vf_flr_in_process_i[251:NVF], rdata[21:16]};

endmodule : kite_pcie_fn
