// Hand-written RTL-internal definitions shared by the Kite blocks. Everything
// that crosses the PCIe link lives in kite_pkg (generated from fpga/spec);
// this package only holds datapath conventions that the host never sees.
package kite_rtl_pkg;

  // MAC-side datapath: 512-bit AXI-Stream beats at 250 MHz (128 Gb/s raw,
  // enough for 100 GbE including the 20-byte preamble/IFG per frame).
  localparam int unsigned DATA_W = 512;
  localparam int unsigned KEEP_W = DATA_W / 8;

  // Ones-complement (RFC 1071) 16-bit addition with end-around carry.
  // (Verilog-2005 function style: yosys 0.23 parses no `return`.)
  function automatic logic [15:0] oc_add(input logic [15:0] a, input logic [15:0] b);
    logic [16:0] s;
    begin
      s = {1'b0, a} + {1'b0, b};
      oc_add = s[15:0] + {15'd0, s[16]};
    end
  endfunction

  // Fold a wide two's-complement sum of 16-bit words into 16 bits.
  function automatic logic [15:0] oc_fold32(input logic [31:0] s);
    logic [16:0] t;
    begin
      t = {1'b0, s[15:0]} + {1'b0, s[31:16]};
      oc_fold32 = t[15:0] + {15'd0, t[16]};
    end
  endfunction

  // Sum of 32 terms of 21 bits (each below 2^16, so the sum fits), as a
  // balanced tree of five adder levels: the IPv4 header sums of kite_txp and
  // kite_rxp (an add chain of 30 words was some 40 LUT levels deep).
  function automatic logic [20:0] sum32x21(input logic [32*21-1:0] t);
    logic [32*21-1:0] a;
    begin
      a = t;
      for (int n = 16; n >= 1; n = n / 2)
        for (int i = 0; i < n; i++) a[21*i +: 21] = a[21*2*i +: 21] + a[21*(2*i+1) +: 21];
      sum32x21 = a[20:0];
    end
  endfunction

  // PCIe byte enables of a request's first and last DW ({last, first}),
  // from its start address's and its last byte's offsets in their DWs; a
  // 1-DW request has its bytes in the first BE and a last BE of 0.
  function automatic logic [7:0] pcie_be(input logic [1:0] first_off, input logic [1:0] last_off,
                                         input logic one_dw);
    logic [3:0] f, l;
    begin
      f = 4'hf << first_off;
      l = 4'hf >> (2'd3 - last_off);
      pcie_be = one_dw ? {4'h0, f & l} : {l, f};
    end
  endfunction

  // L3/L4 classification reported by the parser (RTL-internal encoding).
  typedef enum logic [1:0] {L3_NONE = 2'd0, L3_IPV4 = 2'd1, L3_IPV6 = 2'd2} l3_type_e;
  // L4_OTHER: an IP payload that is neither TCP nor UDP, or any fragment
  // (kite::l4_type::OTHER in the model).
  typedef enum logic [1:0] {L4_NONE = 2'd0, L4_TCP = 2'd1, L4_UDP = 2'd2, L4_OTHER = 2'd3} l4_type_e;

endpackage : kite_rtl_pkg
