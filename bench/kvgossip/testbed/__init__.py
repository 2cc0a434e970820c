"""What the K/V Gossip benchmarks and tests run the reference node under, kept out of the
installed package: a cluster of real nodes on loopback (`localcluster`), hostile clients of a
node (`attacks`), and real faults on nodes in network namespaces (`fault_*`: the mesh, the
schedules, the clients, the checker and the run)."""
