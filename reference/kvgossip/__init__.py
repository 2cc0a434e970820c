"""swarmconf.reference.kvgossip: the K/V Gossip reference node on real Serf agents.

It runs the spec's state machine and sync sessions on a real network: a Serf agent for
membership, change notifications and state queries (`serf_rpc`, `serf_agent`), TCP sync
sessions in length-prefixed msgpack frames (`frames`), and durable SQLite storage (`store`).
"""
