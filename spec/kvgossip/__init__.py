"""swarmconf.spec.kvgossip: the executable specification of K/V Gossip.

Pure Python, no I/O and no clocks (time is always an argument), in the order of the design
text `kv-gossip.md` and the decisions of `kv-gossip-notes.md` (section numbers and table rows
are cited in every docstring). `swarmconf.reference.kvgossip` builds the node on top of it.

Modules and their public API:

- `reasons`: `KvReason` (one stable code per way input is refused), `KvError(.reason)`.
- `crypto`: Ed25519 on raw 32-byte keys and 32-byte seeds: `public_key(seed)`,
  `sign(seed, msg)`, `verify(pk, msg, sig)`, `sha256`, `seed_from_label(label)` (test keys).
- `encoding`: canonical msgpack: `encode(value)`, `decode_canonical(data, max_size)`.
- `keys`: `check_key(key)`, `check_pattern(pattern)` (raise `KvError`), `matches(pattern, key)`,
  `pattern_subset(child, parent)` (the optional issuance lint; sound, not complete).
- `grants`: `Grant` (`.id`, `.subgrant`, `.encode()`), `issue_grant(issuer_seed, issuee,
  pattern, *, subgrant, issued_at, expires_at=0)`, `decode_grant(data)`, `Revocation`
  (`.grant_id`, `.encode()`), `revoke_grant(revoker_seed, grant, revoked_at, root)`,
  `decode_revocation(data, root)`, `check_grant_for(grant, key, ts, root, revoked)`.
- `records`: `Record` (`.key`, `.ts`, `.tombstone`, `.value`, `.signer`, `.entry_hash`,
  `.lww_key`, `.chain` (signed grant bytes), `.encode()`), `make_record(seed, key, ts, value |
  None, chain)` (None makes a tombstone), `decode_record(data)`, `lww_wins(incoming, local)`.
- `chain`: `find_chain(key, ts, signer, grants, root, revoked)` (shortest chain; also the chain
  builder for local writes), `authorize(...) -> Authorization`.
- `treehash`: `tree_hash(entries)`, `tree_hash_of(records)`, `revset_hash(grant_ids)`.
- `state`: the `Store` protocol a node implements; `judge_record(record, local, revoked, root,
  now_ms, skew_ms) -> Verdict` (pure), `apply_record(store, record, root, now_ms)`,
  `receive_record(store, data, root, now_ms)`, `judge_revocation`, `apply_revocation(store,
  data, root) -> RevocationVerdict` (purges voided records), `MemoryStore`, `Outcome`.
- `messages`: session frame names, `message(name, *fields)`, `decode_message(frame)`.
- `session`: `Session(role, store, root, node_id, *, skew_ms, max_loops)` with
  `start(now_ms)`, `receive(frame, now_ms) -> frames to send`, `timeout()`, and `done`,
  `error`, `log`.

Around the spec:

- `vectors`: `write_all(root)` writes the conformance vectors and their schemas;
  `vectors.runner.run(group_type, group, input)` runs one case through the spec.
- `mutants`: `active(name)` swaps in one of the Go implementation's holes, by name.
- `sim`: `run_case(campaign_seed, index, mutant=None) -> dict` runs one simulated network
  schedule and returns its `violations`.

Constants: `DEFAULT_SKEW_MS` (30 s), `DEFAULT_MAX_LOOPS` (3), `MAX_FRAME_BYTES` (4 MiB),
`MAX_VALUE_BYTES` (1 MiB), `MAX_PATTERN_BYTES` (128), `MAX_KEY_BYTES` (256),
`MAX_CHAIN_LENGTH` (16), `MAX_POOL_GRANTS` (256).
"""
