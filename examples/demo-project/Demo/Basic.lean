-- Demo project for handoff-runtime: each marker below is one target.
theorem add_zero' (n : Nat) : n + 0 = n := by
  sorry -- hint: rfl

theorem two_eq : 1 + 1 = 2 := by
  sorry -- hint: decide
