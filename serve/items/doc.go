// Package items is the item API of a typical Go service benchmark, served over HTTP, HTTPS and
// gRPC at once from one store, as a target for rpcbench's demos and tests:
//
//	POST /rpz/items       {"id":"42","name":"pen"} → 201 and the stored item with a server timestamp
//	GET  /rpz/items/{id}  → 200 and the item, or 404
//	rpz.ItemService/CreateItem, rpz.ItemService/GetItem (NOT_FOUND when absent)
//	rpz.ItemService/ListItems (server-streaming), CreateItems (client-streaming), GetItems (bidi)
//
// Ids are strings (a JSON integer id is accepted and kept as its decimal text). Items live in a
// sharded concurrent map; an item created over one protocol is read over the other. With TLS the
// server makes a self-signed certificate for localhost, 127.0.0.1 and ::1 at start (or loads one),
// and hands it to clients through Server.CertPool.
//
// In the flow of rpcbench it is a target, not a stage: like net/http/httptest it binds 127.0.0.1:0,
// tells its addresses, and waits for requests in flight on Close. It imports nothing from the rest
// of rpcbench but its own generated gRPC code (rpzpb), so any test can use it.
package items
