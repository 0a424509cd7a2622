//! Page N of a gender's catalogue at a cost that does not grow with N (issue 19), shared by
//! both stores.
//!
//! A gender's listing (its public characters by rank, then id) is cut into blocks of
//! consecutive cards. A block is named by its fence, the key from which it runs up to the
//! next block's fence, and keeps three counts: its rows (every public card in the range,
//! hidden ones included), the cards a member sees (not hidden) and the cards everyone sees
//! (not hidden, not restricted). To serve page N a store reads the counts (one small
//! partition, or one index range), adds them up to the block that holds the page's first
//! card ([`locate`]), and reads from that block's fence, stepping over fewer cards than one
//! block holds. A writer recounts every block a change touches ([`recount`]): a block grown
//! past [`MAX_BLOCK_ROWS`] is cut in pieces, one shrunk under [`MIN_BLOCK_ROWS`] is folded
//! into the block before it. So a page costs about (listing / block size) count rows plus
//! at most one block of keys, on page 1 and on page 3,000 alike.

/// A block is cut in pieces of [`BLOCK_ROWS`] once it holds more rows than this.
pub const MAX_BLOCK_ROWS: usize = 512;
/// Rows of a fresh block: what a cut or a rebuild makes.
pub const BLOCK_ROWS: usize = 256;
/// A block with fewer rows than this (other than the first) is folded into the one before.
pub const MIN_BLOCK_ROWS: usize = 32;

/// A card's place in the listing order: rank, then id.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CardKey {
    pub rank: i64,
    pub id: String,
}

impl CardKey {
    pub fn new(rank: i64, id: impl Into<String>) -> Self {
        Self { rank, id: id.into() }
    }

    /// The fence of a listing's first block, lower than every card's key.
    pub fn first() -> Self {
        Self { rank: i64::MIN, id: String::new() }
    }

    pub fn is_first(&self) -> bool {
        *self == Self::first()
    }
}

/// A block's fence and counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub fence: CardKey,
    /// Public cards from the fence up to the next fence, hidden ones included.
    pub rows: u32,
    /// Of those, the ones not hidden: what a member sees.
    pub members: u32,
    /// Of those, the ones neither hidden nor restricted: what everyone sees.
    pub everyone: u32,
}

impl Block {
    /// The cards of this block a viewer sees.
    pub fn visible(&self, include_restricted: bool) -> u32 {
        if include_restricted { self.members } else { self.everyone }
    }
}

/// A public card as a block is counted from.
#[derive(Debug, Clone)]
pub struct ListedRow {
    pub key: CardKey,
    pub restricted: bool,
    pub hidden: bool,
}

impl ListedRow {
    pub fn visible(&self, include_restricted: bool) -> bool {
        !self.hidden && (include_restricted || !self.restricted)
    }
}

/// Where the card at `offset` (counting only what the viewer sees) is: the index of its
/// block in `blocks` (in listing order) and how many visible cards of that block come
/// before it. `None` when the listing holds no more than `offset` visible cards.
pub fn locate(blocks: &[Block], include_restricted: bool, offset: u64) -> Option<(usize, u64)> {
    let mut before = 0u64;
    for (index, block) in blocks.iter().enumerate() {
        let visible = u64::from(block.visible(include_restricted));
        if offset < before + visible {
            return Some((index, offset - before));
        }
        before += visible;
    }
    None
}

/// What a writer does with a block it recounted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recount {
    /// Too few rows: drop this fence, so the block before it runs on over these rows, and
    /// recount that one.
    Fold,
    /// Store these blocks: the recounted one (same fence) and, when it was cut, the pieces
    /// after it with fences of their own.
    Store(Vec<Block>),
}

/// The blocks to store for the rows (in listing order) from `fence` up to the next fence.
pub fn recount(fence: &CardKey, rows: &[ListedRow]) -> Recount {
    if rows.len() < MIN_BLOCK_ROWS && !fence.is_first() {
        return Recount::Fold;
    }
    Recount::Store(cut(fence, rows))
}

/// `rows` as one block at `fence`, or, past [`MAX_BLOCK_ROWS`], as even pieces of at most
/// [`BLOCK_ROWS`] (a rebuild cuts a whole listing this way, from [`CardKey::first`]).
pub fn cut(fence: &CardKey, rows: &[ListedRow]) -> Vec<Block> {
    if rows.len() <= MAX_BLOCK_ROWS {
        return vec![count(fence.clone(), rows)];
    }
    let pieces = rows.len().div_ceil(BLOCK_ROWS);
    rows.chunks(rows.len().div_ceil(pieces))
        .enumerate()
        .map(|(n, piece)| {
            let piece_fence = if n == 0 { fence.clone() } else { piece[0].key.clone() };
            count(piece_fence, piece)
        })
        .collect()
}

/// The counts of `rows` as one block at `fence`.
pub fn count(fence: CardKey, rows: &[ListedRow]) -> Block {
    let members = rows.iter().filter(|row| row.visible(true)).count();
    let everyone = rows.iter().filter(|row| row.visible(false)).count();
    Block { fence, rows: rows.len() as u32, members: members as u32, everyone: everyone as u32 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(n: usize, restricted_every: usize) -> Vec<ListedRow> {
        (0..n)
            .map(|i| ListedRow {
                key: CardKey::new(i as i64, format!("c{i}")),
                restricted: restricted_every > 0 && i % restricted_every == 0,
                hidden: false,
            })
            .collect()
    }

    #[test]
    fn a_long_run_is_cut_into_blocks_whose_counts_add_up() {
        let all = rows(1_000, 4);
        let blocks = cut(&CardKey::first(), &all);
        assert_eq!(blocks.len(), 4);
        assert!(blocks[0].fence.is_first());
        assert_eq!(blocks[1].fence, all[250].key, "even pieces");
        assert_eq!(blocks.iter().map(|b| b.members).sum::<u32>(), 1_000);
        assert_eq!(blocks.iter().map(|b| b.everyone).sum::<u32>(), 750);
    }

    #[test]
    fn locate_counts_only_what_the_viewer_sees() {
        let blocks = cut(&CardKey::first(), &rows(1_000, 4));
        assert_eq!(locate(&blocks, true, 0), Some((0, 0)));
        assert_eq!(locate(&blocks, true, 256), Some((1, 6)));
        assert_eq!(locate(&blocks, true, 999), Some((3, 249)));
        assert_eq!(locate(&blocks, true, 1_000), None);
        // Everyone sees 187 of the first block of 250 (0, 4, ..., 248 are restricted).
        assert_eq!(locate(&blocks, false, 187), Some((1, 0)));
        assert_eq!(locate(&blocks, false, 750), None);
    }

    #[test]
    fn a_small_block_folds_unless_it_is_the_first() {
        let few = rows(MIN_BLOCK_ROWS - 1, 0);
        assert_eq!(recount(&few[0].key, &few), Recount::Fold);
        assert!(matches!(recount(&CardKey::first(), &few), Recount::Store(blocks) if blocks.len() == 1));
        assert!(matches!(recount(&CardKey::first(), &[]), Recount::Store(blocks) if blocks[0].rows == 0));
    }

    #[test]
    fn a_grown_block_is_cut_and_keeps_its_fence() {
        let fence = CardKey::new(-5, "x");
        let Recount::Store(blocks) = recount(&fence, &rows(MAX_BLOCK_ROWS + 1, 0)) else { panic!("not cut") };
        assert_eq!(blocks.len(), 3);
        assert!(blocks.iter().all(|b| b.rows as usize >= MIN_BLOCK_ROWS), "no piece is too small to keep");
        assert_eq!(blocks[0].fence, fence);
        assert_eq!(blocks.iter().map(|b| b.rows as usize).sum::<usize>(), MAX_BLOCK_ROWS + 1);
    }
}
