// Package mesh is a built-in target service: a chain of peers (A B C D E by default) in the manner
// of the MeshRPC suite, which measures what one synchronous RPC hop costs.
//
// A Gateway takes POST /peer/hop with {"queue":["A","B","C","D","E"],"limit":1000}. It hands the
// chain's State to the first peer of the queue; every peer counts the hop and, until the hop count
// reaches the limit, calls the next peer of the queue (cycling) and waits for its answer, so a chain
// of N hops holds N calls open at its deepest point. The answer travels back through every peer to the
// gateway, which stamps the end time and the latency per hop. The answer is the MeshRPC suite's, field
// for field, so scripts written against the suite read it unchanged:
//
//	{"State":{"Start":1558817006608054800,"Current":1558817006641384200,"Last":"E",
//	          "Queue":["A","B","C","D","E"],"QueueIdx":0,"Limit":1000,"HopCount":1000,
//	          "HopLatency":33329},"Error":null}
//
// Start and Current are Unix nanoseconds; Last is the name of the peer the last hop arrived at; and
// QueueIdx, which every peer moves on by one as the hop arrives, points at the peer that would come
// next: Limit mod len(Queue), 0 after 1000 hops over A–E. HopLatency = (Current − Start) / HopCount in
// nanoseconds: the round trip of the whole chain, measured by the gateway's clock alone (the suite's
// last peer stamps Current on its own clock, so its HopLatency leaves out the way back), divided by the
// hops; every hop, the gateway's call to the first peer included, is one real call over the transport.
// POST /staticPeer/hop makes the same chain of the same peers as plain function calls in the gateway's
// process: the baseline that shows what the network, the encoding and the scheduling of one hop cost.
//
// Peers talk to each other over one of three transports: HTTP/1.1 with JSON (a keep-alive pool; one
// connection, so two file descriptors in a single process, per open hop), HTTP/2 cleartext with JSON
// (h2c: many hops multiplexed on a few connections) or gRPC (meshpb, multiplexed likewise). A chain
// never hangs: it has a deadline (Config.Timeout, by default 10s + 2ms per hop) that travels with it,
// and HTTP/1.1 refuses a connection it has no file descriptor for, with an error that says so.
//
// Start runs the gateway and five peers in one process on loopback, like net/http/httptest;
// ServePeer and NewGateway run them in separate processes wired by address. The package imports
// nothing from the rest of rpcbench, so any test can use it.
package mesh
