//! The tours, in the order of the argument. Each step's words are ours, one
//! or two sentences; its link is the lab state it shows (`tests/golden/tours.txt`
//! is the reviewed copy).

use super::{Claim, Stop, Tour};

/// Every tour, in reading order; the home page opens on the first one's
/// first step.
pub static TOURS: &[Tour] = &[
    Tour {
        id: "why",
        title: "Why LLM traffic is different",
        summary: "Requests that cost a hundred times each other, and what that does to queues.",
        stops: &[
            Stop::at(
                "One balancer, four replicas",
                "lab=routing&rule=round-robin&vs=none&step=40",
                "Requests reach the balancer (LB), and round robin hands them to four replicas in turn. \
                 A dot's size is the work it brings; a ring marks a request that will write a long answer.",
            )
            .claims(Claim::InTurn)
            .playing(),
            Stop::at(
                "Equal turns, unequal work",
                "lab=routing&rule=round-robin&vs=none",
                "Round robin counts requests, not work: here it hands one to replica {1}, already holding {6}, while replica {2} \
                 holds {3}, so every request there shares each engine step with more neighbours.",
            )
            .claims(Claim::PastLighter { times: 2 }),
            Stop::at(
                "Variation is what hurts",
                "lab=knee",
                "Queueing theory says the wait near full load grows with how much service times vary. \
                 Drag the variation (cv² {2} now) up to where LLM traffic sits and watch the usable load, {67%} now, shrink.",
            )
            .claims(Claim::VariationShrinksLoad)
            .reveal("cv2"),
            Stop::playground(
                "Your turn",
                "lab=knee",
                "Put in your own traffic's variation and the wait you can accept, and read off the load to plan for.",
            ),
        ],
    },
    Tour {
        id: "routing",
        title: "Routing rules",
        summary: "Round robin against least outstanding, then the rules that read the cache.",
        stops: &[
            Stop::at(
                "Two rules, one stream",
                "lab=routing&rule=least-outstanding&vs=round-robin",
                "The same requests go through two rules: least outstanding picks the replica with the fewest \
                 in flight, round robin takes turns. The outlined replica is where they part ways.",
            )
            .claims(Claim::RulesPart),
            Stop::at(
                "Load widens the gap",
                "lab=routing&rule=least-outstanding&vs=round-robin&step=518",
                "Just past capacity ({107%} here), round robin has left requests waiting on {2} replicas while the others have room; \
                 least outstanding, on the same requests, has {none} waiting. Push the rate further and every rule becomes one long queue.",
            )
            .claims(Claim::QueueOnlyBeside)
            .reveal("rate")
            .also(&["cards"]),
            Stop::at(
                "Reuse what is cached",
                "lab=routing&rule=prefix-aware&vs=least-outstanding",
                "A cache-aware rule sends requests where their shared prefix is already cached: {57%} of prompt tokens come \
                 from cache against {42%} for least outstanding. Watch the price too: requests pile onto the replica holding a popular prefix.",
            )
            .claims(Claim::CacheAndPile { times: 2 })
            .reveal("prefix-pool")
            .also(&["cards"]),
            Stop::playground(
                "Your turn",
                "lab=routing",
                "All eleven rules, every setting, real traces: try your own pool.",
            ),
        ],
    },
    Tour {
        id: "herding",
        title: "Stale signals",
        summary: "Routers that trust old load numbers all pick the same replica.",
        stops: &[
            Stop::at(
                "Old numbers",
                "lab=herding&rule=stale-least-outstanding&step=5",
                "Four routers each pick the least loaded replica, but they learn the load only every ten ticks. \
                 Between two scrapes they all trust the same numbers, {5} ticks old here.",
            )
            .claims(Claim::SameOldNumbers)
            .playing(),
            Stop::at(
                "The pile",
                "lab=herding&rule=stale-least-outstanding&step=19",
                "For ten ticks every router sent everything to the one replica that looked idle at the last scrape. \
                 It now holds {22} requests while the others drain.",
            )
            .claims(Claim::Pile { load: 22 }),
            Stop::at(
                "Look at different times",
                "lab=herding&rule=stale-least-outstanding&stagger=1&step=19",
                "Here the scrapes are staggered: each router reads the load at its own moment, so their views \
                 differ and no replica draws every request. The busiest holds {10} where the pile reached 22; untick stagger to bring the pile back.",
            )
            .claims(Claim::NoPile { most: 10 })
            .reveal("stagger"),
            Stop::at(
                "Or add a coin flip",
                "lab=herding&rule=two-choices&step=19",
                "Another fix: each router samples two replicas at random and takes the lighter one. \
                 Routers with the same numbers now choose differently: this tick they send to {2} replicas.",
            )
            .claims(Claim::RoutersDiffer)
            .reveal("rule"),
            Stop::playground(
                "Your turn",
                "lab=herding",
                "More routers, staler numbers, four rules: find where herding starts.",
            ),
        ],
    },
    Tour {
        id: "prefix",
        title: "Prefix affinity",
        summary: "Send a request where its prompt is cached, until that replica is too busy.",
        stops: &[
            Stop::at(
                "Cached prompts",
                "lab=prefix&step=1",
                "A request whose prompt starts like an earlier one can skip that part of prefill, if it lands \
                 where the earlier one was cached. Two routers take the same requests: one by load, one by prefix.",
            )
            .claims(Claim::PrefixSaves)
            .playing(),
            Stop::at(
                "A hot miss",
                "lab=prefix&step=3",
                "The load-only router sent this request away from replica {1}, which holds its prefix. \
                 Its prefill is computed again from scratch.",
            )
            .claims(Claim::HotMiss),
            Stop::at(
                "Affinity has a limit",
                "lab=prefix&step=8",
                "When the replica holding the prefix is too far ahead of the others, the prefix-aware router \
                 lets go and balances load ({2} times in this run). The threshold says how far is too far.",
            )
            .claims(Claim::LetsGo)
            .reveal("threshold"),
            Stop::at(
                "The same trade on adapters",
                "lab=lora",
                "A LoRA adapter is either in a replica's few slots or not, so affinity to a popular one cannot be half-kept: \
                 sending requests where their adapter sits puts {26%} of them on one replica, where the same popularity on prompt prefixes puts {13%}.",
            )
            .claims(Claim::AdapterHotSpot)
            .playing(),
            Stop::at(
                "Weigh both",
                "lab=lora&rule=llm-d",
                "llm-d's pipeline adds its adapter score to load and cache scores: TTFT P95 {350} ms, against {8771} ms for \
                 affinity alone and {26346} ms for load alone, whose replicas keep stalling to load adapters.",
            )
            .claims(Claim::PipelineBeatsBoth)
            .also(&["table"]),
            Stop::at(
                "When a transfer beats a prefill",
                "lab=lora",
                "With a KV store shared by the pool, a replica missing a prefix can fetch it instead of computing it. \
                 Without the store least load's TTFT P95 is {4150} ms against prefix-aware's {250}; at 512 GB/s it is {50}, below prefix-aware's.",
            )
            .claims(Claim::TierGapShrinks)
            .also(&["chart"]),
            Stop::playground(
                "Your turn",
                "lab=prefix",
                "Change the replicas, the cache size and the trace, or write your own requests.",
            ),
        ],
    },
    Tour {
        id: "batching",
        title: "Batching",
        summary: "Inside one engine: static batches, continuous batching, chunked prefill.",
        stops: &[
            Stop::at(
                "One engine, three slots",
                "lab=batching&mode=static&step=1",
                "Static batching admits a batch of requests and waits for its longest one to finish \
                 before anyone else gets in.",
            )
            .claims(Claim::AdmitsOnlyEmpty)
            .playing(),
            Stop::at(
                "An idle slot",
                "lab=batching&mode=static&step=2",
                "A slot sits empty while {3} requests wait: static batching admits no one until the whole \
                 batch has finished.",
            )
            .claims(Claim::IdleSlot { waiting: 3 }),
            Stop::at(
                "Refill at once",
                "lab=batching&mode=continuous&step=4",
                "Continuous batching refills a slot the moment it frees. The price: an iteration spent \
                 on a new request's prefill emits no token for anyone.",
            )
            .claims(Claim::RefillStalls),
            Stop::at(
                "Cut the prefill",
                "lab=batching&mode=chunked&step=6",
                "Chunked prefill cuts a prompt into pieces that share iterations with decoding, so tokens \
                 keep flowing: {0} iterations pass without output after the first token. The budget sets how much work fits in one.",
            )
            .claims(Claim::ChunksKeepFlowing)
            .reveal("chunk-budget")
            .also(&["table"]),
            Stop::playground(
                "Your turn",
                "lab=batching",
                "Edit the requests, the slots and the budget, and compare the three modes.",
            ),
        ],
    },
    Tour {
        id: "split",
        title: "Prefill and decode apart",
        summary: "Disaggregation removes one cost and adds another; the prompt length decides which is larger.",
        stops: &[
            Stop::at(
                "Short prompts stay together",
                "lab=disagg&prompt=256",
                "With 256-token prompts a prefill barely slows the decodes it shares a step with: \
                 time per output token is {7.05} ms colocated and {7.06} ms split. The split still sends \
                 every prompt's KV over the link, so its median first token comes at {24} ms against {11}.",
            )
            .claims(Claim::SplitCostsShort)
            .also(&["table"]),
            Stop::at(
                "Long prompts stretch the decodes",
                "lab=disagg&prompt=4096",
                "At 4,096 tokens each prompt's chunks slow the decode steps beside them, by about a fifth at the \
                 tail: TPOT P95 is {9.35} ms colocated and {7.91} ms on decode engines that never prefill. \
                 The split's mean latency is now the lower one, transfer included.",
            )
            .claims(Claim::SplitWinsLong)
            .also(&["table"]),
            Stop::at(
                "The link sets the crossover",
                "lab=disagg&bandwidth=6",
                "On a {6} GB/s link the split pays only from prompts of about {3,100} tokens, where moving their KV \
                 costs less than the decodes it spares. Move the bandwidth and watch the vertical line.",
            )
            .claims(Claim::Crossover { from: 2900, to: 3300 })
            .reveal("bandwidth")
            .also(&["cards"]),
            Stop::at(
                "The split must fit the prompts",
                "lab=disagg&prompt=16384",
                "At 16,384 tokens two prefill engines cannot keep up: the split's mean latency is {78} s. Prefilling \
                 on a decode engine whenever the prefill engine is busy (the prefill-load rule) brings it to {7.7} s, about the colocated pool's {8.2} s.",
            )
            .claims(Claim::SplitOverwhelmed)
            .also(&["table"]),
            Stop::playground(
                "Your turn",
                "lab=disagg",
                "Resize the two pools, change the link or the decode router, and set the conditional rules' thresholds.",
            ),
        ],
    },
    Tour {
        id: "scaling",
        title: "Autoscaling",
        summary: "A second control loop sizes the pool, minutes behind the traffic.",
        stops: &[
            Stop::at(
                "A signal that always reads full",
                "lab=autoscale&scaler=busy&step=569",
                "The busy fraction counts a replica as busy whenever anything runs on it, and with a batch \
                 of sixteen something nearly always does. It orders a replica while {64%} of the slots sit empty.",
            )
            .claims(Claim::OrdersHalfEmpty { used: 40 }),
            Stop::at(
                "Orders wait out the cold start",
                "lab=autoscale&scaler=kv&step=614",
                "The surge has begun and KV usage crosses its target, so the scaler orders a replica. \
                 It takes requests only after its cold start, {4 min} into a surge that lasts {8 min}.",
            )
            .claims(Claim::OrderWaitsCold)
            .reveal("cold"),
            Stop::at(
                "A fresh replica takes every arrival",
                "lab=autoscale&scaler=kv&step=858",
                "The new replica has nothing outstanding, so least outstanding sends it all {18} arrivals of its first \
                 {4} seconds, filling its {16} slots while each other replica still holds at least {100} waiting. Its cache is \
                 empty, so each of those prompts is prefilled in full.",
            )
            .claims(Claim::FreshTakesAll),
            Stop::at(
                "Slow start lets it in gradually",
                "lab=autoscale&scaler=kv&slow-start=60&step=858",
                "With slow start the new replica's share of arrivals climbs over {1 min} instead, so it is not \
                 handed every arrival at once. The price shows here: it runs {0} of its {16} slots while the others queue.",
            )
            .claims(Claim::FreshHeldBack)
            .reveal("slow-start"),
            Stop::playground(
                "Your turn",
                "lab=autoscale&scaler=predictive",
                "Try each scaler on the same surge, the prefix-aware rule, or a shorter cold start.",
            ),
        ],
    },
    Tour {
        id: "sessions",
        title: "Agent sessions",
        summary: "Sessions of many calls, and what keying them on the prefix does to a burst of subagents.",
        stops: &[
            Stop::at(
                "A fan-out lands on one replica",
                "lab=agents&key=prefix&step=96",
                "A planner starts 16 subagents at once. They share its prefix, so the prefix key sends all {16} \
                 to replica {4}: {6} wait for a slot while {36} slots sit free on the other replicas.",
            )
            .claims(Claim::BurstOnOne { waiting: 6, free: 36 }),
            Stop::at(
                "Load alone spreads it",
                "lab=agents&key=load&step=97",
                "Keyed on load, the same burst goes to all {4} replicas and nothing waits. The price is the \
                 cache: most subagents land where the planner's context is not held.",
            )
            .claims(Claim::BurstSpread),
            Stop::at(
                "Whole sessions pay for the burying",
                "lab=agents&key=prefix",
                "Over every session the prefix key has the best cache share, {92%}, and by far the slowest \
                 sessions: a P95 of {100} s against {45} s for load alone.",
            )
            .claims(Claim::CacheButSlowest)
            .shows("table"),
            Stop::at(
                "Cap each session",
                "lab=agents&key=prefix&cap=4&step=96",
                "With a cap of {4} calls per session the gateway holds {12} of the subagents back. Other \
                 sessions' TTFT P95 falls from 16 s to {3.9} s; the fan-out itself takes longer.",
            )
            .claims(Claim::CapHolds { held: 12, p95_s: 4 })
            .reveal("cap"),
            Stop::playground(
                "Your turn",
                "lab=agents&key=bounded",
                "The load-bounded prefix key keeps most of the cache without the burying; move its balance threshold, the fan-out or the cap.",
            ),
        ],
    },
    Tour {
        id: "first-token",
        title: "The first token",
        summary: "Recovery works only until the user sees text; a reasoning model moves that moment and changes what a hedge costs.",
        stops: &[
            Stop::at(
                "Before the first token, a retry is unseen",
                "lab=first-token&recovery=retry",
                "With no recovery {15} turns end in an error; retrying on another replica recovers every failure \
                 that came before the first visible token, leaving {0}. But {19} streams still break, because their \
                 replica failed after the user had started reading.",
            )
            .claims(Claim::RetryHidesEarly)
            .shows("table"),
            Stop::at(
                "After it, only the application can help",
                "lab=first-token&recovery=resume",
                "Retry, hedge and failover cannot touch the {19} broken streams. Re-prompting another replica with \
                 the text already shown can: {29} streams go on from where they stopped, and none breaks.",
            )
            .claims(Claim::ResumeSaves)
            .shows("table"),
            Stop::at(
                "A plain model's hedge races the whole answer",
                "lab=first-token&recovery=hedge&reasoning=0&hedge-until=end",
                "A plain model shows its first token almost at once, so a hedge that should cover a slow replica \
                 has to run until one copy finishes. Its {43} hedges each decoded {83%} of an answer for nothing.",
            )
            .claims(Claim::HedgeCost { above: true, pct: 60 })
            .shows("table"),
            Stop::at(
                "Reasoning makes the same hedge cheaper",
                "lab=first-token&recovery=hedge",
                "A reasoning model thinks before it shows anything, so the losing copy is cancelled while it is \
                 still reasoning: {181} hedges, each {27%} of an answer.",
            )
            .claims(Claim::HedgeCost { above: false, pct: 50 })
            .reveal("hedge-after")
            .shows("table"),
            Stop::playground(
                "Your turn",
                "lab=first-token",
                "Change the effort mix, how often effort varies inside a conversation, or route high effort to a pool of its own.",
            ),
        ],
    },
    Tour {
        id: "evaluate",
        title: "Evaluating a routing change",
        summary: "Why a canary of a cache-aware rule measures less than the rule does, and how a benchmark can hide overload.",
        stops: &[
            Stop::at(
                "The truth, and a 5% canary",
                "lab=evaluate&design=request",
                "Running alone on the whole pool, prefix-aware routing changes mean TTFT by {-3.6} ticks. A 5% per-request canary \
                 measures {-2.4}: only {12} of {3,532} consecutive turns both reached the new rule, so little of the locality it creates is its own.",
            )
            .claims(Claim::CanaryUnderstates)
            .shows("table")
            .also(&["cards"]),
            Stop::at(
                "Canary whole conversations",
                "lab=evaluate&design=session",
                "Choosing the canary per conversation keeps {4.84%} of consecutive turns together on the new rule, against {0.34%} per request; \
                 {70%} of their history is found cached.",
            )
            .claims(Claim::SessionKeepsTurns)
            .shows("table"),
            Stop::at(
                "Warm the cache before measuring",
                "lab=evaluate&design=split",
                "Measured from empty caches the new rule looks {1.9} ticks faster; after a warm-up, {3.6}. \
                 A short cold benchmark understates whatever a rule gains from the cache.",
            )
            .claims(Claim::ColdUnderstates)
            .shows("table"),
            Stop::at(
                "A closed loop hides overload",
                "lab=evaluate",
                "At {1.64×} the lab's rate an open-loop run gets {40%} of first tokens in time, while a closed-loop benchmark \
                 at the same rate reports {100%}: its clients wait for answers, so it slows down with the pool.",
            )
            .claims(Claim::ClosedHides),
            Stop::at(
                "When the cache in front fails",
                "lab=evaluate",
                "A semantic cache absorbs over half the requests, then goes down. Without a limit, goodput stays under 90% of the pool's own \
                 for {4,000} ticks; with a rate limit right after the lookup, for {0}.",
            )
            .claims(Claim::LimitShortens)
            .reveal("limit"),
            Stop::playground(
                "Your turn",
                "lab=evaluate",
                "Try another pair of rules, a larger canary share, or a different outage.",
            ),
        ],
    },
    Tour {
        id: "providers",
        title: "Renting capacity",
        summary: "Reserved and metered deployments, regions, breakers, and the provider's own cache.",
        stops: &[
            Stop::at(
                "Reserved first",
                "lab=providers",
                "A reserved deployment is paid by the hour, busy or not, so spillover sends every call there and lets only what it refuses go on \
                 to the metered one: {1.8%} of calls here, for {$5.43} per 1,000 calls against {$7.91} when both take equal shares.",
            )
            .claims(Claim::SpillCheaper)
            .playing()
            .also(&["cards"]),
            Stop::at(
                "Past its capacity",
                "lab=providers",
                "Below its capacity the reserved deployment takes everything; past it the metered share climbs fast: \
                 {0%} of calls spill at {90%} load, {51%} at {236%}.",
            )
            .claims(Claim::SpillRises)
            .reveal("ptu-tpm")
            .also(&["chart"]),
            Stop::at(
                "Two regions, one conversation",
                "lab=providers&reserved=0&metered=2&regions=2&incident-region=0&strategy=shuffle",
                "Equal weights over two regions send {50%} of follow-up turns to the other region, and each region has its own cache: \
                 {50%} of turns find their history there, against {100%} when the session is pinned.",
            )
            .claims(Claim::RegionsScatter)
            .playing()
            .also(&["table"]),
            Stop::at(
                "The breaker is the failover",
                "lab=providers&rate=4.5&incident-region=0&breaker-429=0&strategy=priority-pool",
                "A priority pool uses its metered backend only while the reserved one's breaker is tripped. With a rule that counts only \
                 server errors it never trips, so the metered backend serves {0} calls while clients get {151} 429s: count 429 too.",
            )
            .claims(Claim::GroupTwoIdle)
            .reveal("breaker-429")
            .also(&["cards"]),
            Stop::playground(
                "Your turn",
                "lab=providers",
                "Regions, quotas, cache keys, fan-outs and budgets: try your own deployments.",
            ),
        ],
    },
];
