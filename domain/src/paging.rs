//! Page requests as the API takes them: `pageNo` from 1, `pageSize` at most 60 (API.md §2).

use crate::Invalid;

pub const MAX_PAGE_SIZE: u32 = 60;
/// The page size the home screen asks for (spec §9).
pub const HOME_PAGE_SIZE: u32 = 30;
/// Deep offsets are refused: nobody scrolls a catalogue ten thousand items deep, and an
/// unbounded offset is a cheap way to make the store work hard.
pub const MAX_PAGE_NO: u32 = 10_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest {
    page_no: u32,
    page_size: u32,
}

impl PageRequest {
    pub fn parse(page_no: i64, page_size: i64) -> Result<Self, Invalid> {
        if !(1..=i64::from(MAX_PAGE_NO)).contains(&page_no) {
            return Err(Invalid::new("pageNo", format!("must be from 1 to {MAX_PAGE_NO}")));
        }
        if !(1..=i64::from(MAX_PAGE_SIZE)).contains(&page_size) {
            return Err(Invalid::new("pageSize", format!("must be from 1 to {MAX_PAGE_SIZE}")));
        }
        Ok(Self { page_no: page_no as u32, page_size: page_size as u32 })
    }

    pub fn page_no(self) -> u32 {
        self.page_no
    }

    pub fn page_size(self) -> u32 {
        self.page_size
    }

    /// How many items come before this page.
    pub fn offset(self) -> u64 {
        u64::from(self.page_no - 1) * u64::from(self.page_size)
    }

    /// A page shorter than the page size is the last one (API.md §2).
    pub fn is_last(self, returned: usize) -> bool {
        returned < self.page_size as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_numbers_start_at_one() {
        assert!(PageRequest::parse(0, 30).is_err());
        assert_eq!(PageRequest::parse(1, 30).map(|p| p.offset()), Ok(0));
        assert_eq!(PageRequest::parse(3, 30).map(|p| p.offset()), Ok(60));
    }

    #[test]
    fn a_page_holds_at_most_sixty_items() {
        assert!(PageRequest::parse(1, 60).is_ok());
        assert!(PageRequest::parse(1, 61).is_err());
        assert!(PageRequest::parse(1, 0).is_err());
    }

    #[test]
    fn a_short_page_is_the_last() {
        let page = PageRequest::parse(1, 30).unwrap_or_else(|e| panic!("{e}"));
        assert!(!page.is_last(30));
        assert!(page.is_last(29));
    }
}
