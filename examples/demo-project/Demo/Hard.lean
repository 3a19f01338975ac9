-- No worker knows this one: it needs a library lemma nobody has.
theorem hard_bound (n : Nat) (h : 2 ≤ n) : n ^ n ≥ 2 ^ n := by
  sorry
