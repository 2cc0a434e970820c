"""K/V Gossip benchmarks on real Serf agents: propagation, catch-up, hostile connections."""
