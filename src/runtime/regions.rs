//! Connected regions of a grid: the `regions KEY into SIZE [label LABEL]` statement's work,
//! shared by both engines (the machine code calls [`measure`] as a helper).
//!
//! Owns what a region is (the cells of the grid with one nonzero value of KEY, joined
//! through orthogonal neighbours with that value) and the in-place labelling that finds
//! them. Written by hand: a union-find over a few dozen to 65,535 cells that must allocate
//! nothing per game, working in the output slots themselves; no crate labels components in
//! a caller's `i64` slots.

/// Where one `regions` statement reads and writes: first slots (of the grid's first cell)
/// of KEY, SIZE and, if asked, LABEL, the grid's shape and the bounds SIZE and LABEL clamp
/// to (as any store into them does).
#[derive(Debug, Clone, Copy)]
pub struct Grid {
    /// First slot of KEY.
    pub key: usize,
    /// First slot of SIZE.
    pub size: usize,
    /// First slot of LABEL, if the statement has one.
    pub label: Option<usize>,
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// SIZE's bounds.
    pub size_bounds: (i64, i64),
    /// LABEL's bounds.
    pub label_bounds: (i64, i64),
    /// Whether a change to SIZE or LABEL must be told (an immediate end condition reads
    /// one): only then does [`measure`] compare them before and after.
    pub watch: bool,
}

/// Follows parent links (1-based positions) from position `i` (0-based) to its root,
/// halving the path on the way: the root is the region's first cell.
fn root(v: &mut [i64], at: usize, mut i: usize) -> usize {
    loop {
        let p = v[at + i] as usize - 1;
        if p == i {
            return i;
        }
        let pp = v[at + p] as usize - 1;
        v[at + i] = pp as i64 + 1;
        i = pp;
    }
}

/// Joins the regions of cells `a` and `b` (0-based): the later root points at the earlier.
fn join(v: &mut [i64], at: usize, a: usize, b: usize) {
    let (ra, rb) = (root(v, at, a), root(v, at, b));
    let (lo, hi) = (ra.min(rb), ra.max(rb));
    v[at + hi] = lo as i64 + 1;
}

/// Labels the grid's regions in `vals`: each cell's SIZE becomes the number of cells of its
/// region (0 where KEY is 0), and its LABEL, if asked, the 1-based position of its region's
/// first cell (0 where KEY is 0). Returns whether SIZE or LABEL changed anywhere (their
/// immediate end conditions are then pending), when the grid is watched (else `false`). SIZE's slots hold the union-find's parent
/// links while it works, then the counts, in four passes and no memory of its own.
pub fn measure(vals: &mut [i64], g: &Grid) -> bool {
    let (n, at) = (g.rows * g.cols, g.size);
    let digest = |vals: &[i64]| {
        g.watch.then(|| {
            let label = g.label.map(|l| fingerprint(&vals[l..l + n]));
            (fingerprint(&vals[at..at + n]), label)
        })
    };
    let before = digest(vals);
    // Pass 1: every cell with a value is its own region, joined with its left and upper
    // neighbours of the same value.
    for i in 0..n {
        let k = vals[g.key + i];
        if k == 0 {
            vals[at + i] = 0;
            continue;
        }
        vals[at + i] = i as i64 + 1;
        if i % g.cols > 0 && vals[g.key + i - 1] == k {
            join(vals, at, i, i - 1);
        }
        if i >= g.cols && vals[g.key + i - g.cols] == k {
            join(vals, at, i, i - g.cols);
        }
    }
    // Pass 2: each cell points straight at its root, the region's first cell (every link
    // points to an earlier cell, so the earlier cells already do).
    for i in 0..n {
        if vals[at + i] != 0 {
            let p = vals[at + i] as usize - 1;
            vals[at + i] = vals[at + p];
        }
    }
    // Pass 3: the root's position is the label; a root counts its cells, as a negative
    // number (a later cell of its region still reads its root from its own slot).
    for i in 0..n {
        if vals[at + i] == 0 {
            continue;
        }
        let r = vals[at + i] as usize - 1;
        if let Some(l) = g.label {
            vals[l + i] = (r as i64 + 1).clamp(g.label_bounds.0, g.label_bounds.1);
        }
        if r == i {
            vals[at + i] = -1;
        } else {
            vals[at + r] -= 1;
        }
    }
    if let Some(l) = g.label {
        for i in 0..n {
            if vals[g.key + i] == 0 {
                vals[l + i] = 0i64.clamp(g.label_bounds.0, g.label_bounds.1);
            }
        }
    }
    // Pass 4, last cell first: a cell reads its root's count before the root (an earlier
    // cell) turns its own count positive.
    for i in (0..n).rev() {
        let s = vals[at + i];
        let count = match s {
            0 => 0,
            s if s < 0 => -s,
            r => -vals[at + r as usize - 1],
        };
        vals[at + i] = count;
    }
    for i in 0..n {
        vals[at + i] = vals[at + i].clamp(g.size_bounds.0, g.size_bounds.1);
    }
    digest(vals) != before
}

/// An order-sensitive digest of `v` (whether a statement changed a block of slots, without
/// a copy of it).
fn fingerprint(v: &[i64]) -> u64 {
    v.iter().fold(0xcbf2_9ce4_8422_2325, |h, &x| {
        (h ^ x as u64).wrapping_mul(0x0100_0000_01b3).rotate_left(5)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn grid(rows: usize, cols: usize, label: bool) -> Grid {
        let n = rows * cols;
        Grid {
            key: 0,
            size: n,
            label: label.then_some(2 * n),
            rows,
            cols,
            size_bounds: (i64::MIN, i64::MAX),
            label_bounds: (i64::MIN, i64::MAX),
            watch: true,
        }
    }

    /// The reference: a flood fill from each unlabelled cell, with a queue.
    fn flood(key: &[i64], rows: usize, cols: usize) -> (Vec<i64>, Vec<i64>) {
        let n = rows * cols;
        let (mut size, mut label) = (vec![0; n], vec![0; n]);
        for s in 0..n {
            if key[s] == 0 || label[s] != 0 {
                continue;
            }
            let mut cells = vec![s];
            label[s] = s as i64 + 1;
            let mut q = 0;
            while q < cells.len() {
                let c = cells[q];
                q += 1;
                let (r, k) = (c / cols, c % cols);
                let mut near = Vec::new();
                if k > 0 {
                    near.push(c - 1);
                }
                if k + 1 < cols {
                    near.push(c + 1);
                }
                if r > 0 {
                    near.push(c - cols);
                }
                if r + 1 < rows {
                    near.push(c + cols);
                }
                for d in near {
                    if key[d] == key[s] && label[d] == 0 {
                        label[d] = s as i64 + 1;
                        cells.push(d);
                    }
                }
            }
            for &c in &cells {
                size[c] = cells.len() as i64;
            }
        }
        (size, label)
    }

    #[test]
    fn a_u_shaped_region_joins_through_its_bottom_row() {
        // 1 0 1
        // 1 0 1
        // 1 1 1   one region of 7; the zeros are in none.
        let key = [1, 0, 1, 1, 0, 1, 1, 1, 1];
        let g = grid(3, 3, true);
        let mut v = [key.to_vec(), vec![9; 18]].concat();
        assert!(measure(&mut v, &g));
        assert_eq!(&v[9..18], &[7, 0, 7, 7, 0, 7, 7, 7, 7]);
        assert_eq!(&v[18..], &[1, 0, 1, 1, 0, 1, 1, 1, 1]);
        assert!(!measure(&mut v, &g), "nothing changes the second time");
    }

    #[test]
    fn sizes_clamp_to_their_bounds() {
        let g = Grid {
            size_bounds: (0, 2),
            ..grid(1, 4, false)
        };
        let mut v = vec![3, 3, 3, 5, 0, 0, 0, 0];
        measure(&mut v, &g);
        assert_eq!(&v[4..], &[2, 2, 2, 1]);
    }

    proptest! {
        #[test]
        fn labelling_agrees_with_a_flood_fill(
            rows in 1usize..7,
            cols in 1usize..7,
            seed in proptest::collection::vec(0i64..4, 36),
        ) {
            let n = rows * cols;
            let key = &seed[..n];
            let g = grid(rows, cols, true);
            let mut v = [key.to_vec(), vec![-5; 2 * n]].concat();
            measure(&mut v, &g);
            let (size, label) = flood(key, rows, cols);
            prop_assert_eq!(&v[n..2 * n], &size[..]);
            prop_assert_eq!(&v[2 * n..], &label[..]);
        }
    }
}
