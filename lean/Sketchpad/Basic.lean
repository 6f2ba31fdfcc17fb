/-
  Sketchpad.Basic — the finite alphabets of the machine (mirrors `sketchpad/symbols.py`).

  A `View` is an operation and three cells and nothing else (no position, no length, no
  history); a `Step` is a symbol to write, a carry/borrow/flag cell and the next operation.
  Rows of digits are lists of cells, units first, as on the Python sheet (`Row.cells`).
-/

module

@[expose] public noncomputable section

namespace Sketchpad

/-- The cell alphabet (`CELL_SYMBOLS`): digits, blank `_`, `+`, `-`, `<`, `=`, `>`, `Z`, `N`. -/
inductive Cell where
  | d0 | d1 | d2 | d3 | d4 | d5 | d6 | d7 | d8 | d9
  | blank | plus | minus | less | equal | greater | zero | nonzero
  deriving DecidableEq, Repr

/-- Operations a view can carry (`OPS`) and the control words a step may name (`CONTROL`). -/
inductive Op where
  | ADD | SUB | CMPEQ | CMPLT | CMPGT | MUL | ZT | INC | ADD2 | DQ | ODD | NEG | ABS
  | SGNADD | SGNSUB | SGNMUL | SGNDIV
  | HALT | CMP | SWAP | ADJ
  deriving DecidableEq, Repr

/-- `View = (op, a, b, c)`. -/
structure View where
  op : Op
  a : Cell
  b : Cell
  c : Cell
  deriving DecidableEq, Repr

/-- `Step = (sym, flag, next)`. -/
structure Step where
  sym : Cell
  flag : Cell
  next : Op
  deriving DecidableEq, Repr

/-- A stepper reads one view and emits one step; the network, the reference, anything. -/
abbrev Stepper := View → Step

/-- The step given to views outside every table (never used by a theorem). -/
def dfltStep : Step := ⟨.blank, .blank, .HALT⟩

/-- `SCAN_OPS`: a column scan continues while the step names one of these. -/
def Op.isScan : Op → Bool
  | .ADD | .SUB | .CMPEQ | .CMPLT | .CMPGT | .MUL | .ZT | .INC | .ADD2 => true
  | _ => false

/-- `digit(s)` of reference.py: a digit's value; a blank (and any marker) counts as 0. -/
def Cell.val : Cell → Nat
  | .d0 => 0 | .d1 => 1 | .d2 => 2 | .d3 => 3 | .d4 => 4
  | .d5 => 5 | .d6 => 6 | .d7 => 7 | .d8 => 8 | .d9 => 9
  | _ => 0

/-- The digit cell of a number below ten (`str(n)`). -/
def Cell.digit : Nat → Cell
  | 0 => .d0 | 1 => .d1 | 2 => .d2 | 3 => .d3 | 4 => .d4
  | 5 => .d5 | 6 => .d6 | 7 => .d7 | 8 => .d8 | 9 => .d9
  | _ => .blank

/-- `carry_symbol(n)`: carries are written only when non-zero. -/
def Cell.carry (n : Nat) : Cell := if n = 0 then .blank else Cell.digit n

def Cell.isDigit : Cell → Bool
  | .d0 | .d1 | .d2 | .d3 | .d4 | .d5 | .d6 | .d7 | .d8 | .d9 => true
  | _ => false

/-! ### Small finite cell sets (for bounded `decide` checks)

Each list is in the order of `Cell`'s constructors, the order in which derive/leangen/table.py
emits the views of V, so that a grid of views built from these lists can be compared with a
generated `V_<op>` list element by element (see Sketchpad/Facts.lean). -/

/-- Digits and blank: what a digit row shows at any column (blank past its end). -/
def db : List Cell := [.d0, .d1, .d2, .d3, .d4, .d5, .d6, .d7, .d8, .d9, .blank]
/-- The digits. -/
def digitCells : List Cell := [.d0, .d1, .d2, .d3, .d4, .d5, .d6, .d7, .d8, .d9]
/-- Carries and borrows of additions and subtractions. -/
def carries : List Cell := [.d1, .blank]
/-- Carries of a partial-product row. -/
def mulCarries : List Cell := [.d1, .d2, .d3, .d4, .d5, .d6, .d7, .d8, .blank]
/-- A partial-product carry below the multiplier digit (or none). -/
def mulOK (b c : Cell) : Bool := decide (c = .blank) || decide (c.val < b.val)

/-! ### Rows -/

/-- The cell a row shows at its lowest remaining column (blank past its end). -/
def hd : List Cell → Cell
  | [] => .blank
  | x :: _ => x

/-- The row from the next column on. -/
def tl : List Cell → List Cell
  | [] => []
  | _ :: xs => xs

/-- The number a row of cells denotes, units first (blank and markers count 0). -/
def rowVal : List Cell → Nat
  | [] => 0
  | x :: xs => x.val + 10 * rowVal xs

def allDigits : List Cell → Bool
  | [] => true
  | x :: xs => x.isDigit && allDigits xs

/-- A row of digits (an operand as the Python runtime writes it). -/
def Digits (l : List Cell) : Prop := allDigits l = true

/-! ### Lemmas about cells -/

theorem Cell.val_digit : ∀ n, n < 10 → (Cell.digit n).val = n
  | 0, _ => rfl | 1, _ => rfl | 2, _ => rfl | 3, _ => rfl | 4, _ => rfl
  | 5, _ => rfl | 6, _ => rfl | 7, _ => rfl | 8, _ => rfl | 9, _ => rfl
  | n + 10, h => absurd h (by omega)

theorem Cell.isDigit_digit : ∀ n, n < 10 → (Cell.digit n).isDigit = true
  | 0, _ => rfl | 1, _ => rfl | 2, _ => rfl | 3, _ => rfl | 4, _ => rfl
  | 5, _ => rfl | 6, _ => rfl | 7, _ => rfl | 8, _ => rfl | 9, _ => rfl
  | n + 10, h => absurd h (by omega)

theorem Cell.val_carry (n : Nat) (h : n < 10) : (Cell.carry n).val = n := by
  by_cases h0 : n = 0
  · subst h0; decide
  · unfold Cell.carry
    rw [if_neg h0]
    exact Cell.val_digit n h

theorem Cell.val_le (x : Cell) : x.val ≤ 9 := by
  cases x <;> decide

theorem Cell.ne_blank_of_isDigit {x : Cell} (h : x.isDigit = true) : x ≠ .blank := by
  intro e
  subst e
  exact absurd h (by decide)

theorem Cell.mem_db_of_isDigit (x : Cell) : x.isDigit = true → x ∈ db := by
  cases x <;> decide

theorem Cell.mem_digitCells_of_isDigit (x : Cell) : x.isDigit = true → x ∈ digitCells := by
  cases x <;> decide

theorem Cell.isDigit_of_mem_db (x : Cell) : x ∈ db → x ≠ .blank → x.isDigit = true := by
  cases x <;> decide

theorem Cell.digit_mod_ne_blank (m : Nat) : Cell.digit (m % 10) ≠ .blank :=
  Cell.ne_blank_of_isDigit (Cell.isDigit_digit _ (Nat.mod_lt _ (by decide)))

theorem mem_carries {c : Cell} : c ∈ carries → c = .blank ∨ c = .d1 := by
  cases c <;> decide

theorem carries_val_le {c : Cell} (h : c ∈ carries) : c.val ≤ 1 := by
  rcases mem_carries h with e | e <;> subst e <;> decide

theorem carry_mem_carries : ∀ n, n ≤ 1 → Cell.carry n ∈ carries
  | 0, _ => by decide
  | 1, _ => by decide
  | n + 2, h => absurd h (by omega)

theorem mulOK_blank (d : Cell) : mulOK d .blank = true := by
  first
    | rfl
    | simp [mulOK]

/-! ### Lemmas about rows -/

theorem rowVal_cons (x : Cell) (l : List Cell) : rowVal (x :: l) = x.val + 10 * rowVal l := rfl

theorem rowVal_hd_tl (l : List Cell) : rowVal l = (hd l).val + 10 * rowVal (tl l) := by
  cases l with
  | nil => decide
  | cons x xs => rfl

theorem len_tl (l : List Cell) : (tl l).length = l.length - 1 := by
  cases l with
  | nil => decide
  | cons x xs => show xs.length = xs.length + 1 - 1; omega

theorem digits_nil : Digits [] := rfl

theorem digits_cons {x : Cell} {xs : List Cell} (h : Digits (x :: xs)) :
    x.isDigit = true ∧ Digits xs := by
  have h' : (x.isDigit && allDigits xs) = true := h
  show x.isDigit = true ∧ allDigits xs = true
  revert h'
  cases x.isDigit <;> cases allDigits xs <;> decide

theorem digits_cons_intro {x : Cell} {xs : List Cell} (hx : x.isDigit = true) (h : Digits xs) :
    Digits (x :: xs) := by
  show (x.isDigit && allDigits xs) = true
  rw [hx]
  exact h

theorem digits_tl {xs : List Cell} (h : Digits xs) : Digits (tl xs) := by
  cases xs with
  | nil => exact h
  | cons x xs => exact (digits_cons h).2

theorem hd_mem_db {xs : List Cell} (h : Digits xs) : hd xs ∈ db := by
  cases xs with
  | nil => decide
  | cons x xs => exact Cell.mem_db_of_isDigit x (digits_cons h).1

theorem eq_nil_of_hd_blank {xs : List Cell} (h : Digits xs) (hb : hd xs = .blank) : xs = [] := by
  cases xs with
  | nil => rfl
  | cons x xs => exact absurd hb (Cell.ne_blank_of_isDigit (digits_cons h).1)

theorem len_replicate (a : Cell) : ∀ n, (List.replicate n a).length = n
  | 0 => rfl
  | n + 1 => by
    show (List.replicate n a).length + 1 = n + 1
    rw [len_replicate a n]

end Sketchpad
