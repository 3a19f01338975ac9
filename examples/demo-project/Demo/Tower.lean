-- A stubborn target: the fill pass finds no lemma, and the deep pass splits the proof into two
-- helper lemmas that are both still open. One marker becomes two, so the regression gate rolls
-- the file back byte for byte and this target stays blocked.
theorem tower_bound (n : Nat) (h : 4 ≤ n) : n ^ 2 ≤ 2 ^ n := by
  sorry -- deep: regress
