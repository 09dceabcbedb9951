// Package ws sends JSON-RPC 2.0 calls over WebSocket (ws:// and wss://), as many Ethereum-style
// nodes serve them: a pool of persistent connections, each carrying many calls at once, with a
// reader per connection that hands each answer to the sender waiting for its id. It implements
// transport.Transport with github.com/coder/websocket.
//
// It sits in the flow at transport, beside httpx: the engine picks it for ws and wss URLs. Each
// request body is one text message (a call or a batch); the answer is the message that carries the
// call's id (for a batch, any of its ids). An answer that carries no id of a waiting call (an id of
// null, or a call that already timed out) reaches nobody: the call it was meant for times out, and
// Transport.Orphans counts it. Options.Conns connections are opened, each on first use, and calls
// take them in turn.
package ws
