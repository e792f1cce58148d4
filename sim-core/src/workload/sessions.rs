//! Conversations recovered from a trace that records none.
//!
//! Public traces give each request's prompt as a chain of block hashes but no
//! session id. A later turn of a conversation resends the whole earlier prompt
//! (plus the answer and a new message), so its chain starts with every *whole*
//! block of the earlier turn's prompt; the earlier turn's last block, if
//! partial, hashes differently once the next turn fills it. That is the link
//! this module follows: a request continues the conversation of an earlier
//! request whose last whole block appears in its own chain. (That need not
//! be the conversation's latest turn: a conversation may branch, as when a
//! user edits a message and asks again.)
//!
//! A block that starts many different continuations (three or more distinct
//! next blocks across the trace) is a prefix shared by many conversations, a
//! system prompt or a common document, not one conversation's history, so it
//! links nothing. In Mooncake's conversation trace, for instance, every
//! request begins with the same block; without this rule the whole trace would
//! be one conversation.

use alloc::vec::Vec;
use hashbrown::HashMap;
use rustc_hash::FxBuildHasher;

use super::{BlockId, Workload};

/// Distinct next blocks from which a block counts as shared by many
/// conversations rather than extended by one.
const BRANCHES: u8 = 3;

/// Most turns one recovered conversation holds; a longer chain carries on as
/// a new conversation (the lab's generator draws at most as many).
pub const MAX_TURNS: u32 = 64;

/// The conversations of a workload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sessions {
    /// Per request (in the workload's order), its conversation, numbered in
    /// order of each conversation's first request.
    pub of: Vec<u32>,
    /// Conversations found.
    pub count: u32,
    /// Per request, its leading blocks that other conversations share too
    /// (a system prompt, say): what any replica may hold, as opposed to the
    /// conversation's own history.
    pub shared_blocks: Vec<u32>,
}

/// Up to [`BRANCHES`] distinct next blocks of one block.
#[derive(Clone, Copy, Default)]
struct Next {
    first: Option<BlockId>,
    second: Option<BlockId>,
    many: bool,
}

impl Next {
    fn add(&mut self, b: BlockId) {
        match (self.first, self.second) {
            (None, _) => self.first = Some(b),
            (Some(f), _) if f == b => {}
            (_, None) => self.second = Some(b),
            (_, Some(s)) if s == b => {}
            _ => self.many = true,
        }
    }

    fn branches(&self) -> u8 {
        if self.many {
            BRANCHES
        } else {
            u8::from(self.first.is_some()) + u8::from(self.second.is_some())
        }
    }
}

impl Workload {
    /// The conversations its prefix chains imply (see the module's notes).
    pub fn sessions(&self) -> Sessions {
        let mut next: HashMap<BlockId, Next, FxBuildHasher> = HashMap::default();
        for r in &self.requests {
            for w in r.blocks.windows(2) {
                next.entry(w[0]).or_default().add(w[1]);
            }
        }
        let private = |b: &BlockId| next.get(b).map_or(0, Next::branches) < BRANCHES;
        // The last whole block of each request so far → its conversation.
        let mut ends: HashMap<BlockId, u32, FxBuildHasher> = HashMap::default();
        let mut turns: Vec<u32> = Vec::new();
        let mut of = Vec::with_capacity(self.requests.len());
        let tokens = self.block_tokens.max(1);
        for r in &self.requests {
            let found = r
                .blocks
                .iter()
                .rev()
                .find_map(|b| ends.get(b).copied())
                .filter(|&s| turns[s as usize] < MAX_TURNS);
            let s = found.unwrap_or_else(|| {
                turns.push(0);
                turns.len() as u32 - 1
            });
            turns[s as usize] += 1;
            of.push(s);
            let whole = (r.prompt_tokens / tokens) as usize;
            if let Some(b) = r.blocks.get(whole.wrapping_sub(1)).filter(|b| private(b)) {
                ends.insert(*b, s);
            }
        }
        // Blocks that more than one conversation's prompts contain.
        let mut owner: HashMap<BlockId, Option<u32>, FxBuildHasher> = HashMap::default();
        for (r, &s) in self.requests.iter().zip(&of) {
            for &b in &r.blocks {
                let o = owner.entry(b).or_insert(Some(s));
                if *o != Some(s) {
                    *o = None;
                }
            }
        }
        let shared_blocks = self
            .requests
            .iter()
            .map(|r| {
                r.blocks
                    .iter()
                    .take_while(|b| owner.get(*b).is_some_and(Option::is_none))
                    .count() as u32
            })
            .collect();
        Sessions {
            of,
            count: turns.len() as u32,
            shared_blocks,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Tick;
    use crate::workload::Request;

    fn req(t: u64, prompt: u32, blocks: &[BlockId]) -> Request {
        Request {
            adapter: 0,
            arrival: Tick(t),
            prompt_tokens: prompt,
            output_tokens: 10,
            blocks: blocks.to_vec(),
            long: false,
        }
    }

    #[test]
    fn turns_that_extend_a_prompt_join_its_conversation_and_a_shared_start_does_not() {
        // Block 0 starts every prompt (three conversations branch from it).
        let w = Workload {
            block_tokens: 10,
            requests: alloc::vec![
                req(0, 25, &[0, 1, 2]),       // A, turn 1: 1 is its last whole block
                req(1, 25, &[0, 5, 6]),       // B
                req(2, 45, &[0, 1, 3, 4, 7]), // A, turn 2 (2 was partial)
                req(3, 15, &[0, 8]),          // C: only block 0 in common
                req(4, 38, &[0, 5, 9, 10]),   // B, turn 2
            ],
        };
        let s = w.sessions();
        assert_eq!(s.of, alloc::vec![0, 1, 0, 2, 1]);
        assert_eq!(s.count, 3);
        assert_eq!(s.shared_blocks, alloc::vec![1, 1, 1, 1, 1]);
    }

    #[test]
    fn a_trace_without_shared_blocks_is_one_conversation_a_request() {
        let w = Workload {
            block_tokens: 10,
            requests: alloc::vec![req(0, 20, &[1, 2]), req(1, 20, &[3, 4])],
        };
        let s = w.sessions();
        assert_eq!(s.of, alloc::vec![0, 1]);
        assert_eq!(s.shared_blocks, alloc::vec![0, 0]);
    }
}
