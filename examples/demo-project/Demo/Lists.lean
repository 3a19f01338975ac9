theorem length_nil : ([] : List Nat).length = 0 := by
  sorry -- hint: simp
