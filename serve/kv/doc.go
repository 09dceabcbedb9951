// Package kv is a key-value HTTP service backed by an embedded LSM engine (Pebble): the storage
// service of a well-known load-testing course, built in so that GET and PUT benchmarks have a real,
// durable store to hit.
//
// The API, under /v0:
//
//	PUT    /v0/entity?id=K          body = value   → 201 Created (overwrites)
//	GET    /v0/entity?id=K                         → 200 with the value, or 404
//	DELETE /v0/entity?id=K                         → 202 Accepted (also for an absent key)
//	GET    /v0/entities?start=S[&end=E]            → 200, every key in [S, E) in byte order,
//	                                                 streamed as one HTTP chunk per record "key\nvalue"
//	GET    /v0/status                              → 200
//	GET    /v0/prefill                             → 200, what the prefill loaded and its time:
//	                                                 "prefilled N keys, B bytes of values, in 1.2s"
//
// A missing or empty id (or start) is 400, another method on a known path is 405, an unknown path
// is 400. With the default synchronous writes, a 201 or 202 is sent only after the write-ahead log
// has been fsynced, so an acknowledged write survives kill -9, a kernel crash or a power cut.
//
// A Server is like net/http/httptest.Server: New binds 127.0.0.1:0 unless told otherwise, URL says
// where it listens, and Close waits for requests in flight before closing the store. Prefill loads
// a known set of keys first, so that reads hit a realistically large store; nothing is answered
// before it is done (connections wait in the listen queue), so /v0/prefill answering is the
// store being ready.
//
// In the request flow this package is a target: nothing in the project imports it except the
// command line and tests, and it imports nothing from the project.
package kv
