-- This file does not build: the proof of `double` names a lemma that does not exist, so no goal
-- here can be closed. The same blocker twice escalates to repair mode: the patch-only repair
-- worker returns a diff for the broken line, the runtime applies it, and `triple` is proved next.
theorem double (n : Nat) : 2 * n = n + n := by
  rw [Nat.two_mull] -- repair: rw [Nat.two_mul] -- error: unknown constant 'Nat.two_mull'

theorem triple (n : Nat) : 3 * n = n + n + n := by
  sorry -- hint: omega
