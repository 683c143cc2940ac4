//! The language's vocabulary: the instructions, operators, value types and policy names that
//! the front end produces, the program stores and both backends run.
//!
//! Owns plain data only (no parsing, no evaluation): [`Op`] and the enums it is made of,
//! [`Num`] and [`Ty`], the operators of statements ([`AssignOp`], [`OutcomeKind`],
//! [`TiePolicy`]) and the agents' [`Policy`]. What an operation computes lives in
//! [`crate::expr::tree`]; how text becomes these values lives in [`crate::expr::parse`].

/// Which faction a reference is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Who {
    /// Not a faction variable.
    None,
    /// The faction bound by the innermost context (the acting faction, or the faction an
    /// aggregation is iterating over).
    Bound,
    /// The acting faction (`me.x`), even inside an aggregation.
    Me,
    /// The action's target faction (`target.x`).
    Target,
    /// A faction named in the scenario.
    Fixed(u8),
}

/// Which element of a set an indexed reference is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    /// Not an indexed variable.
    None,
    /// The element bound by the innermost set aggregation.
    Bound,
    /// An element named in the scenario.
    Fixed(u16),
}

/// Aggregation kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agg {
    /// Sum of the body.
    Sum,
    /// Largest value of the body.
    Max,
    /// Smallest value of the body.
    Min,
    /// How many times the body is true.
    Count,
}

/// Pure functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    /// `min(a, ...)`
    Min,
    /// `max(a, ...)`
    Max,
    /// `abs(x)`
    Abs,
    /// `floor(x)`
    Floor,
    /// `ceil(x)`
    Ceil,
    /// `round(x)`, halves away from zero
    Round,
    /// `clamp(x, lo, hi)`
    Clamp,
    /// `row(i)` of a grid: `(i, rows, cols)`, the 1-based row of position `i` (0 off the
    /// grid).
    Row,
    /// `col(i)` of a grid: `(i, rows, cols)`, the 1-based column of position `i` (0 off the
    /// grid).
    Col,
    /// `cell(r, c)` of a grid: `(r, c, rows, cols)`, the 1-based position of row `r`, column
    /// `c` (0 off the grid).
    Cell,
}

/// Random draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RandFn {
    /// `uniform(a, b)`: integer uniform on `a..=b`.
    Uniform,
    /// `random()`: real uniform on `[0, 1)`.
    Random,
    /// `bernoulli(p)`: 1 with probability p.
    Bernoulli,
    /// `binomial(n, p)`.
    Binomial,
    /// `poisson(lambda)`.
    Poisson,
    /// `normal(mean, sd)`, real.
    Normal,
    /// `roll(n, sides)`: sum of n dice.
    Roll,
    /// `choice(v1, v2, ...)`: one of the values, uniformly.
    Choice,
    /// `weighted(w1, v1, w2, v2, ...)`: one of the values with probability proportional to its
    /// weight.
    Weighted,
}

/// One instruction of the stack machine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Op {
    /// Push a real constant.
    Const(f64),
    /// Push an integer constant.
    Int(i64),
    /// Push variable slot `base + faction * fstride + element`.
    Load {
        /// First slot of the variable.
        base: u32,
        /// Slots per faction (0 for a global variable).
        fstride: u32,
        /// Whose value.
        who: Who,
        /// Which element.
        elem: Elem,
    },
    /// Pop a 1-based position; push that element of variable slot `base + faction *
    /// fstride`'s set of `n` elements (a computed subscript, `wall[it + 1]`). A position
    /// outside `1..=n` is a fault.
    LoadAt {
        /// First slot of the variable.
        base: u32,
        /// Slots per faction (0 for a global variable).
        fstride: u32,
        /// Whose value.
        who: Who,
        /// Number of elements of the variable's set.
        n: u16,
    },
    /// Push the round number.
    Round,
    /// Push the age number.
    Age,
    /// Push the number of factions.
    NFactions,
    /// Push the round number within the current age (1 in an age's first round).
    AgeRound,
    /// Push 1 when a faction has lost and left the game.
    Eliminated(Who),
    /// Push a faction's number (1-based, its place in the file; `seat` in formulas).
    Seat(Who),
    /// Push the seat a faction sits in this game (1-based): its number unless games rotate
    /// seats (`table_seat` in formulas).
    TableSeat(Who),
    /// Push a faction's side id (1-based, 0 for none).
    Side(Who),
    /// Push 1 for a player faction, 0 for a non-player.
    Player(Who),
    /// Push 1 when the last `draw` produced a card.
    Drawn,
    /// Push an attribute of the last drawn card (0 when none).
    CardAttr(u16),
    /// Push the number of cards left in a deck.
    DeckLeft(u16),
    /// Push the number of cards of a deck the bound faction holds.
    Held(u16),
    /// Push the number of cards of a deck the bound faction has completed.
    Completed(u16),
    /// Pop an id; push 1 when the bound faction has completed the deck's card with that `id`.
    HasCompleted(u16),
    /// Negate the top.
    Neg,
    /// Logical not of the top.
    Not,
    /// Turn the top into 0 or 1.
    Bool,
    /// Pop two, push the result.
    Bin(BinOp),
    /// Pop; jump to the absolute position when it was 0.
    JumpIfFalse(u32),
    /// Jump to the absolute position.
    Jump(u32),
    /// Pop `n` arguments, push the function's value.
    Call(Func, u8),
    /// Pop `n` arguments, push a random draw.
    Rand(RandFn, u8),
    /// Push the sum of `n` dice with `s` sides.
    Dice(u32, u32),
    /// Run the next `len` ops once per faction (skipping the bound one when `others`) and
    /// push the aggregate.
    AggFactions {
        /// Sum, max, min or count.
        kind: Agg,
        /// Skip the faction bound outside.
        others: bool,
        /// Length of the body that follows.
        len: u32,
    },
    /// Run the next `len` ops once per element of a set of `n` elements.
    AggSet {
        /// Sum, max, min or count.
        kind: Agg,
        /// Number of elements.
        n: u16,
        /// Length of the body that follows.
        len: u32,
    },
}

/// Size of the value stack: the deepest an expression may use, counting nested aggregate
/// bodies (which continue on the same stack); checked when it is compiled.
pub const STACK: usize = 64;

/// The static type of a formula.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    /// A 64-bit integer.
    Int,
    /// A 64-bit float.
    Real,
}

/// A value of either type. Values compare by number, not by type: `Int(1) == Real(1.0)`.
#[derive(Debug, Clone, Copy)]
pub enum Num {
    /// An integer.
    Int(i64),
    /// A real.
    Real(f64),
}

impl Num {
    /// As a real (integers beyond 2^53 round to the nearest real).
    #[inline]
    pub fn real(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Real(r) => r,
        }
    }

    /// Whether it counts as true (non-zero).
    #[inline]
    pub fn truth(self) -> bool {
        match self {
            Num::Int(i) => i != 0,
            Num::Real(r) => r != 0.0,
        }
    }

    /// The type.
    pub fn ty(self) -> Ty {
        match self {
            Num::Int(_) => Ty::Int,
            Num::Real(_) => Ty::Real,
        }
    }
}

impl PartialEq for Num {
    fn eq(&self, other: &Num) -> bool {
        self.partial_cmp(other) == Some(std::cmp::Ordering::Equal)
    }
}

impl PartialOrd for Num {
    /// Integers compare exactly; a comparison with a real compares as reals.
    fn partial_cmp(&self, other: &Num) -> Option<std::cmp::Ordering> {
        match (self, other) {
            (Num::Int(a), Num::Int(b)) => Some(a.cmp(b)),
            _ => self.real().partial_cmp(&other.real()),
        }
    }
}

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Num::Int(i) => write!(f, "{i}"),
            Num::Real(r) => write!(f, "{r}"),
        }
    }
}

/// Binary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (real division)
    Div,
    /// `//` (floor division)
    FloorDiv,
    /// `%` (remainder with the sign of the divisor)
    Mod,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `and` (short-circuit)
    And,
    /// `or` (short-circuit)
    Or,
}

impl BinOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "and",
            BinOp::Or => "or",
        }
    }
}

/// `win` or `lose`. (A game ends in a draw through `end REASON` with a draw reason.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutcomeKind {
    /// The faction in scope wins.
    Win,
    /// The faction in scope loses and leaves the game.
    Lose,
}

/// Assignment operators of a statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AssignOp {
    /// `=`
    Set,
    /// `+=`
    Add,
    /// `-=`
    Sub,
}

/// How tied factions share a rank award.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TiePolicy {
    /// Sum the tied places' awards and divide evenly, rounding down (-6 among four is -2
    /// each; `ties split` or `ties split down`).
    Split,
    /// Sum the tied places' awards and divide evenly, rounding toward zero, the remainder
    /// ignored (-6 among four is -1 each; `ties split toward_zero`).
    SplitTowardZero,
    /// Every tied faction gets the award of the best tied place.
    High,
    /// Every tied faction gets the award of the worst tied place.
    Low,
    /// Tied factions get nothing ("ties negate").
    Zero,
}

/// Agent policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Random, proportional to each action's weight.
    Weighted,
    /// The highest value plus normal noise.
    Greedy,
    /// The first available in a fixed list.
    Priority,
}
