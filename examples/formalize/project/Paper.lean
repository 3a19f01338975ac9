-- The example project of `handoff demo formalize`: claim 1 of ../paper.md is already here
-- (formalized in an earlier session), so the loop skips it.

theorem add_zero : ∀ n : Nat, n + 0 = n := by
  intro n; rfl
