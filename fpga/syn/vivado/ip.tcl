# IP configuration for the Kite card on the Alveo U250, for the board top
# fpga/rtl/top/kite_top.sv. The PCIe lanes come from the board file's x16
# interface; the CMACs are bound to the sites wired to the QSFP28 cages
# (UG1289: QSFP0 on GTY quad 231, X1Y44-47, next to CMACE4_X0Y8; QSFP1 on
# quad 230, X1Y40-43, CMACE4_X0Y7); reference clock pins are in
# kite_u250.xdc. fpga/syn/vivado/ip_ports.sv declares the ports kite_top
# uses; check them against the generated cores (rtl.rst, "Board top").
proc kite_create_ips {dir} {
    file mkdir $dir

    # PCIe Gen3 x16 integrated block (PCIE40E4), 512-bit AXI-Stream RQ/RC/CQ/CC
    # at 250 MHz user clock. SR-IOV: 1 PF with 16 VFs (fpga/spec MAX_VFS);
    # BARs per fpga/spec: BAR0 64 KiB registers, BAR2 1 MiB doorbells
    # (VF: 64 KiB), BAR4 MSI-X table/PBA (64 PF / 8 VF vectors). ARI on and
    # PF0's VFs at function numbers 4..19 (First VF Offset 4): kite_top's
    # VF_FN_BASE, which kite_pcie and kite_msix translate to the card's 1..16.
    # The IP is kite_pcie_ip: kite_pcie is the RTL adapter (fpga/rtl/pcie)
    # on its user interfaces, which expects: RC straddle with up to four
    # completions per beat (kite_pcie_rc delimits them by is_sop/is_eop; with
    # 64-byte completions it doubles the read rate), RQ straddle (a read
    # request at DW 8 of a write's last beat), no straddling on CQ/CC, the
    # default DWORD-aligned mode (which straddle requires), tags chosen by the user logic (client tag:
    # its reorder buffer is indexed by tag), MPS capability 256 bytes (its
    # MPS parameter; cfg_max_payload / cfg_max_read_req feed it the
    # negotiated values). MSI-X with the table in user logic (kite_msix in
    # kite_card_sys: 64 PF vectors, 8 per VF; the core's built-in table has
    # 8 per function): BAR4 accesses reach the card, which answers them,
    # and the card hands the core each message on cfg_interrupt_msix_*.
    create_ip -name pcie4_uscale_plus -vendor xilinx.com -library ip -module_name kite_pcie_ip -dir $dir
    set_property -dict [list \
        CONFIG.PCIE_BOARD_INTERFACE {pci_express_x16} \
        CONFIG.PL_LINK_CAP_MAX_LINK_SPEED {8.0_GT/s} \
        CONFIG.PL_LINK_CAP_MAX_LINK_WIDTH {X16} \
        CONFIG.AXISTEN_IF_EXT_512_RQ_STRADDLE {true} \
        CONFIG.AXISTEN_IF_EXT_512_CQ_STRADDLE {false} \
        CONFIG.AXISTEN_IF_RC_STRADDLE {true} \
        CONFIG.AXISTEN_IF_EXT_512_RC_4TLP_STRADDLE {true} \
        CONFIG.axisten_if_enable_client_tag {true} \
        CONFIG.pf0_dev_cap_max_payload {256_bytes} \
        CONFIG.axisten_if_width {512_bit} \
        CONFIG.axisten_freq {250} \
        CONFIG.PF0_DEVICE_ID {0001} \
        CONFIG.PF0_VENDOR_ID {4B49} \
        CONFIG.PF0_CLASS_CODE {020000} \
        CONFIG.pf0_bar0_64bit {true} CONFIG.pf0_bar0_size {64} CONFIG.pf0_bar0_scale {Kilobytes} \
        CONFIG.pf0_bar2_enabled {true} CONFIG.pf0_bar2_64bit {true} \
        CONFIG.pf0_bar2_size {1} CONFIG.pf0_bar2_scale {Megabytes} \
        CONFIG.pf0_bar4_enabled {true} CONFIG.pf0_bar4_64bit {true} \
        CONFIG.pf0_bar4_size {16} CONFIG.pf0_bar4_scale {Kilobytes} \
        CONFIG.pf0_msix_enabled {true} CONFIG.PF0_MSIX_CAP_TABLE_SIZE {03F} \
        CONFIG.PF0_MSIX_CAP_TABLE_BIR {BAR_5:4} CONFIG.PF0_MSIX_CAP_PBA_BIR {BAR_5:4} \
        CONFIG.PF0_MSIX_CAP_TABLE_OFFSET {00000000} \
        CONFIG.PF0_MSIX_CAP_PBA_OFFSET {00002000} \
        CONFIG.MSI_X_OPTIONS {MSI-X_External} \
        CONFIG.SRIOV_CAP_ENABLE {true} CONFIG.PF0_SRIOV_CAP_TOTAL_VF {16} \
        CONFIG.PF0_SRIOV_CAP_INITIAL_VF {16} CONFIG.pf0_ari_enabled {true} \
        CONFIG.SRIOV_FIRST_VF_OFFSET {4} CONFIG.PF0_SRIOV_FIRST_VF_OFFSET {4} \
        CONFIG.PF0_SRIOV_VF_DEVICE_ID {0002} \
        CONFIG.pf0_sriov_bar0_64bit {true} CONFIG.pf0_sriov_bar0_size {64} CONFIG.pf0_sriov_bar0_scale {Kilobytes} \
        CONFIG.pf0_sriov_bar2_enabled {true} CONFIG.pf0_sriov_bar2_64bit {true} \
        CONFIG.pf0_sriov_bar2_size {64} CONFIG.pf0_sriov_bar2_scale {Kilobytes} \
        CONFIG.pf0_sriov_bar4_enabled {true} CONFIG.pf0_sriov_bar4_64bit {true} \
        CONFIG.pf0_sriov_bar4_size {16} CONFIG.pf0_sriov_bar4_scale {Kilobytes} \
        CONFIG.PF0_SRIOV_CAP_VER {1} \
        CONFIG.VFG0_MSIX_CAP_TABLE_SIZE {007} \
        CONFIG.VFG0_MSIX_CAP_TABLE_BIR {BAR_5:4} CONFIG.VFG0_MSIX_CAP_TABLE_OFFSET {00000000} \
        CONFIG.VFG0_MSIX_CAP_PBA_BIR {BAR_5:4} CONFIG.VFG0_MSIX_CAP_PBA_OFFSET {00002000} \
        CONFIG.extended_tag_field {true} \
        CONFIG.mode_selection {Advanced} \
    ] [get_ips kite_pcie_ip]

    # Two 100G CMACs, one per QSFP28 cage, 512-bit AXI-Stream at the GT user
    # clock (322.27 MHz), 156.25 MHz reference clock (kite_top drives the
    # SI5335 select for it). RS-FEC on. Static configuration on ports (no
    # AXI4-Lite): kite_top enables the MAC once RX is aligned and wires global
    # PAUSE (the card's rx_xoff). Kite's own FCS engine (fpga/rtl/mac) adds
    # and checks the FCS so NO_FCS, RX_FCS and RX_ALL work per frame: the
    # core must neither insert nor strip it (its TX FCS insertion off, RX
    # FCS delete off; a bring-up item in rtl.rst).
    foreach port {0 1} site {CMACE4_X0Y8 CMACE4_X0Y7} gts {X1Y44~X1Y47 X1Y40~X1Y43} {
        create_ip -name cmac_usplus -vendor xilinx.com -library ip -module_name kite_cmac$port -dir $dir
        set_property -dict [list \
            CONFIG.CMAC_CAUI4_MODE {1} \
            CONFIG.NUM_LANES {4x25} \
            CONFIG.GT_REF_CLK_FREQ {156.25} \
            CONFIG.USER_INTERFACE {AXIS} \
            CONFIG.GT_DRP_CLK {125} \
            CONFIG.CMAC_CORE_SELECT $site \
            CONFIG.GT_GROUP_SELECT $gts \
            CONFIG.INCLUDE_RS_FEC {1} \
            CONFIG.TX_FLOW_CONTROL {1} CONFIG.RX_FLOW_CONTROL {1} \
            CONFIG.ENABLE_AXI_INTERFACE {0} \
            CONFIG.INCLUDE_STATISTICS_COUNTERS {0} \
        ] [get_ips kite_cmac$port]
    }

    generate_target all [get_ips]
    synth_ip [get_ips]
}
