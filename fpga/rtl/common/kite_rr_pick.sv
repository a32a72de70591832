// Round-robin pick over N requests: the first set bit of req_i after
// last_i, else (none after it) the first set bit. last_i = N-1, or any
// value past it, gives a fixed priority, lowest index first.
//
// Both searches are trees of two-way merges, log2(N) deep, so that the pick
// is a few LUT levels for any N (7 merges for the queue manager's 128 tags).
// A loop that carries its choice from one bit to the next, the obvious way
// to write it, synthesizes as a chain N muxes long (Documentation/hw/rtl.rst,
// "Logic depth").
module kite_rr_pick #(
  parameter int unsigned N = 8,
  parameter int unsigned W = $clog2(N)   // not to be overridden
) (
  input  logic [N-1:0] req_i,
  input  logic [W-1:0] last_i,
  output logic         valid_o,
  output logic [W-1:0] idx_o
);

  localparam int unsigned P = 1 << W;   // leaves: N padded to a power of two

  // The lowest set bit of v, with whether there is one. Level l merges the
  // nodes of level l-1 pairwise, in place: node j from nodes 2j and 2j+1,
  // the left one's index when it has a set bit.
  function automatic logic [W:0] first_set(input logic [P-1:0] v);
    logic [P-1:0]   nv;
    logic [P*W-1:0] ix;
    begin
      nv = v;
      for (int i = 0; i < P; i++) ix[i*W +: W] = W'(i);
      for (int l = 1; l <= W; l++) begin
        for (int j = 0; j < (P >> l); j++) begin
          ix[j*W +: W] = nv[2*j] ? ix[2*j*W +: W] : ix[(2*j+1)*W +: W];
          nv[j]        = nv[2*j] | nv[2*j+1];
        end
      end
      first_set = {nv[0], ix[W-1:0]};
    end
  endfunction

  logic [P-1:0] all, after;
  logic [W:0]   pick_all, pick_after;
  always_comb begin
    all   = P'(req_i);
    after = '0;
    for (int i = 0; i < N; i++) after[i] = req_i[i] && W'(i) > last_i;
  end
  assign pick_all   = first_set(all);
  assign pick_after = first_set(after);

  assign valid_o = pick_all[W];
  assign idx_o   = pick_after[W] ? pick_after[W-1:0] : pick_all[W-1:0];

endmodule
