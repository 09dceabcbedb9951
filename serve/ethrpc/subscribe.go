package ethrpc

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// Subscriptions, as geth serves them on a WebSocket connection: eth_subscribe answers a
// subscription id, then the connection receives eth_subscription notifications until
// eth_unsubscribe (or the connection's end). The node makes a block every Config.BlockTime; each
// block is one newHeads notification, one logs notification per matching Transfer log of its
// token transfers, and one newPendingTransactions notification per transaction.
//
// Every notification carries two members geth does not send, after "result" in "params":
// "rpcbenchSeq", the notification's number within its subscription (1, 2, …; a number skipped
// is a notification lost), and "rpcbenchStampNs", the Unix time in nanoseconds at which the
// event was due: block i of the loop is due at i·BlockTime after New, as a real chain's slot
// time, so that a node late to make it shows as latency. It is the same for every subscriber of
// the event. With them a client measures delivery latency and gaps. JSON clients ignore members
// they do not know.

// DefaultNotifyQueue is the number of notifications that may wait to be written on one
// connection; past it, notifications are dropped (their numbers skipped).
const DefaultNotifyQueue = 1 << 14

// transferTopic is Keccak-256 of "Transfer(address,address,uint256)", the ERC-20 event's topic 0.
var transferTopic = [32]byte{0xdd, 0xf2, 0x52, 0xad, 0x1b, 0xe2, 0xc8, 0x9b, 0x69, 0xc2, 0xb0, 0x68, 0xfc, 0x37, 0x8d, 0xaa, 0x95, 0x2b, 0xa7, 0xf1, 0x63, 0xc4, 0xa1, 0x16, 0x28, 0xf5, 0x5a, 0x4d, 0xf5, 0x23, 0xb3, 0xef}

type subKind uint8

const (
	subHeads subKind = iota
	subLogs
	subPending
)

// subscription is one eth_subscribe of one connection.
type subscription struct {
	id     string
	kind   subKind
	full   bool         // newPendingTransactions with true: whole transactions
	addrs  []address    // logs: any of these contracts (none: any)
	topics [][][32]byte // logs: per position, any of these (none: any)
	wc     *wsConn
	// Guarded by Server.subMu:
	seq  uint64 // notifications made, sent or not
	drop int    // every drop-th is not sent (0: none)
}

// callConn is what a call on a WebSocket connection may change: the subscriptions it made, which
// start receiving notifications once the call's answer is written.
type callConn struct {
	wc      *wsConn
	created []*subscription
}

// connMethod is a method that needs the connection it was called on.
type connMethod func(s *Server, cc *callConn, out []byte, p params) ([]byte, *rpcError)

func lookupConn(name string) connMethod {
	switch name {
	case "eth_subscribe":
		return subscribe
	case "eth_unsubscribe":
		return unsubscribe
	}
	return nil
}

// notificationsUnsupported is geth's answer to eth_subscribe over HTTP.
var notificationsUnsupported = &rpcError{code: CodeMethodNotFound, msg: "notifications not supported"}

func subscribe(s *Server, cc *callConn, out []byte, p params) ([]byte, *rpcError) {
	if cc == nil {
		return out, notificationsUnsupported
	}
	if e := p.count(1, 2); e != nil {
		return out, e
	}
	name, e := p.str(0)
	if e != nil {
		return out, e
	}
	sub := &subscription{wc: cc.wc}
	switch name {
	case "newHeads":
		sub.kind = subHeads
		if p.present(1) {
			return out, errorf(CodeInvalidParams, "too many arguments, want at most 1")
		}
	case "logs":
		sub.kind = subLogs
		if p.present(1) {
			if e := sub.filter(p.at(1)); e != nil {
				return out, e
			}
		}
	case "newPendingTransactions":
		sub.kind = subPending
		if p.present(1) {
			if sub.full, e = p.boolean(1); e != nil {
				return out, e
			}
		}
	default:
		return out, errorf(CodeMethodNotFound, "no %q subscription in eth namespace", clip(name))
	}
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:], rand.Uint64())
	binary.LittleEndian.PutUint64(b[8:], rand.Uint64())
	// geth's id: 16 random bytes in hex, leading zeros trimmed.
	id := strings.TrimLeft(hex.EncodeToString(b[:]), "0")
	if id == "" {
		id = "0"
	}
	sub.id = "0x" + id
	cc.created = append(cc.created, sub)
	return appendJSONString(out, sub.id), nil
}

// filter reads a logs subscription's criteria: {"address": A or [A…], "topics": [T or [T…] or
// null, …]}.
func (sub *subscription) filter(raw []byte) *rpcError {
	var f struct {
		Address json.RawMessage   `json:"address"`
		Topics  []json.RawMessage `json:"topics"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return errorf(CodeInvalidParams, "invalid argument 1: want a filter object {\"address\": …, \"topics\": […]}: %v", err)
	}
	addrs, err := oneOrMany(f.Address, 20)
	if err != nil {
		return errorf(CodeInvalidParams, "invalid argument 1: address: %v", err)
	}
	for _, a := range addrs {
		sub.addrs = append(sub.addrs, address(a))
	}
	if len(f.Topics) > 4 {
		return errorf(CodeInvalidParams, "invalid argument 1: %d topics; want at most 4", len(f.Topics))
	}
	for i, t := range f.Topics {
		ts, err := oneOrMany(t, 32)
		if err != nil {
			return errorf(CodeInvalidParams, "invalid argument 1: topics[%d]: %v", i, err)
		}
		var set [][32]byte
		for _, x := range ts {
			set = append(set, [32]byte(x))
		}
		sub.topics = append(sub.topics, set)
	}
	return nil
}

// oneOrMany reads null, one "0x…" of n bytes, or an array of them.
func oneOrMany(raw json.RawMessage, n int) ([][]byte, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var list []string
	if raw[0] == '"' {
		var one string
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, err
		}
		list = []string{one}
	} else if err := json.Unmarshal(raw, &list); err != nil {
		return nil, err
	}
	var out [][]byte
	for _, s := range list {
		b, err := parseFixed(s, n)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

func unsubscribe(s *Server, cc *callConn, out []byte, p params) ([]byte, *rpcError) {
	if cc == nil {
		return out, notificationsUnsupported
	}
	if e := p.count(1, 1); e != nil {
		return out, e
	}
	id, e := p.str(0)
	if e != nil {
		return out, e
	}
	s.subMu.Lock()
	sub, ok := s.subs[id]
	if ok && sub.wc == cc.wc {
		delete(s.subs, id)
	}
	s.subMu.Unlock()
	if !ok || sub.wc != cc.wc {
		return out, errorf(CodeServerError, "subscription not found")
	}
	return append(out, "true"...), nil
}

// activate starts the notifications of the subscriptions a call made, once its answer is out.
func (s *Server) activate(cc *callConn) {
	if len(cc.created) == 0 {
		return
	}
	cc.wc.startWriter(s)
	s.subMu.Lock()
	defer s.subMu.Unlock()
	for _, sub := range cc.created {
		s.opened++
		if s.opened == 1 && s.dropEvery > 0 {
			sub.drop = s.dropEvery
		}
		s.subs[sub.id] = sub
		if s.opened == s.awaitSubs {
			close(s.subscribed)
		}
	}
}

// forget ends the subscriptions of a connection that closed.
func (s *Server) forget(wc *wsConn) {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	for id, sub := range s.subs {
		if sub.wc == wc {
			delete(s.subs, id)
		}
	}
}

// startWriter starts, once, the goroutine that writes wc's notifications.
func (wc *wsConn) startWriter(s *Server) {
	wc.mu.Lock()
	defer wc.mu.Unlock()
	if wc.notes != nil {
		return
	}
	wc.notes = make(chan note, DefaultNotifyQueue)
	wc.writer = make(chan struct{})
	go func() {
		defer close(wc.writer)
		for {
			select {
			case <-wc.done:
				return
			case n := <-wc.notes:
				if !s.stallWait(n.due, wc.done) || !waitUntil(n.held, wc.done) {
					return
				}
				ctx, cancel := context.WithTimeout(context.Background(), wsWriteTimeout)
				err := wc.c.Write(ctx, websocket.MessageText, n.m)
				cancel()
				if err != nil {
					return
				}
				s.notified.Add(1)
			}
		}
	}()
}

// note is a notification to write, its event's due time, and the time before which it is not
// written (Config.PushDelayPerCall; zero: none).
type note struct {
	m         []byte
	due, held time.Time
}

// waitUntil waits until t (at once for a zero t or one past); false if done closes first.
func waitUntil(t time.Time, done <-chan struct{}) bool {
	wait := time.Until(t)
	if t.IsZero() || wait <= 0 {
		return true
	}
	tm := time.NewTimer(wait)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-done:
		return false
	}
}

// stallWait holds the delivery of an event due in a stall window, [k·StallEvery, k·StallEvery +
// StallFor) from New, k ≥ 1, until the window's end. It returns false if done closes first.
func (s *Server) stallWait(due time.Time, done <-chan struct{}) bool {
	if s.stallEvery <= 0 || s.stallFor <= 0 {
		return true
	}
	since := due.Sub(s.clock0)
	if since < s.stallEvery || since%s.stallEvery >= s.stallFor {
		return true
	}
	end := s.clock0.Add(since - since%s.stallEvery + s.stallFor)
	wait := time.Until(end)
	if wait <= 0 {
		return true
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		s.released(end, time.Now())
		return true
	case <-done:
		return false
	}
}

// maxReleases bounds the stall releases kept for StallReleases.
const maxReleases = 1000

// released notes that a connection's writer, held by the stall that ended at end, resumed at
// now.
func (s *Server) released(end, now time.Time) {
	s.relMu.Lock()
	defer s.relMu.Unlock()
	if len(s.releases) < maxReleases {
		s.releases = append(s.releases, Release{End: end, Resumed: now})
	}
}

// Release is one connection's return from a stall: the stall's scheduled end, and when its writer
// actually resumed writing (later on a busy machine).
type Release struct {
	End, Resumed time.Time
}

// StallReleases are the releases from stalls so far (the first 1000), in the order they happened.
func (s *Server) StallReleases() []Release {
	s.relMu.Lock()
	defer s.relMu.Unlock()
	return append([]Release(nil), s.releases...)
}

// publish makes a block every blockTime, from clock0 (or from when awaitSubs subscriptions are
// made), until stop closes or newBlocks are made.
func (s *Server) publish() {
	defer close(s.published)
	t := time.NewTimer(0)
	defer t.Stop()
	<-t.C
	from := s.clock0
	if s.awaitSubs > 0 {
		select {
		case <-s.stop:
			return
		case <-s.subscribed:
			from = time.Now()
		}
	}
	for i := int64(1); s.newBlocks == 0 || uint64(i) <= s.newBlocks; i++ {
		due := from.Add(time.Duration(i) * s.blockTime)
		t.Reset(time.Until(due))
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		b := s.chain.grow()
		var held time.Time
		if s.pushDelay > 0 {
			held = due.Add(time.Duration(s.sinceBlock.Swap(0)) * s.pushDelay)
		}
		s.fanOut(&b, due, held)
	}
}

// fanOut queues block b's notifications, due at due and held until held, to every subscription
// that wants them.
func (s *Server) fanOut(b *block, due, held time.Time) {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	if len(s.subs) == 0 {
		return
	}
	var heads []byte
	var pending, pendingFull [][]byte
	for _, sub := range s.subs {
		switch sub.kind {
		case subHeads:
			if heads == nil {
				heads = appendHeader(nil, b)
			}
			s.notify(sub, heads, due, held)
		case subPending:
			if sub.full && pendingFull == nil {
				for i := range b.txs {
					pendingFull = append(pendingFull, appendTx(nil, &b.txs[i], b.hash, s.chain.chainID))
				}
			} else if !sub.full && pending == nil {
				for i := range b.txs {
					pending = append(pending, appendDataString(nil, b.txs[i].hash[:]))
				}
			}
			list := pending
			if sub.full {
				list = pendingFull
			}
			for _, r := range list {
				s.notify(sub, r, due, held)
			}
		case subLogs:
			logIndex := uint64(0)
			for i := range b.txs {
				t := &b.txs[i]
				if len(t.input) < 4+64 || binary.BigEndian.Uint32(t.input) != selTransfer {
					continue
				}
				if sub.matches(t) {
					s.notify(sub, appendTransferLog(nil, t, b.hash, logIndex), due, held)
				}
				logIndex++
			}
		}
	}
}

// matches reports whether token transfer t's Transfer log passes sub's filter.
func (sub *subscription) matches(t *tx) bool {
	if len(sub.addrs) > 0 && !containsAddr(sub.addrs, t.to) {
		return false
	}
	topics := transferTopics(t)
	for i, set := range sub.topics {
		if len(set) == 0 {
			continue
		}
		if i >= len(topics) {
			return false
		}
		ok := false
		for _, want := range set {
			ok = ok || want == topics[i]
		}
		if !ok {
			return false
		}
	}
	return true
}

func containsAddr(list []address, a address) bool {
	for _, x := range list {
		if x == a {
			return true
		}
	}
	return false
}

// transferTopics are the topics of t's Transfer log: the event, the sender, the recipient.
func transferTopics(t *tx) [3][32]byte {
	var from, to [32]byte
	copy(from[12:], t.from[:])
	copy(to[12:], t.input[4+12:4+32])
	return [3][32]byte{transferTopic, from, to}
}

// notify queues one notification of result to sub (subMu held).
func (s *Server) notify(sub *subscription, result []byte, due, held time.Time) {
	sub.seq++
	if sub.drop > 0 && sub.seq%uint64(sub.drop) == 0 {
		return
	}
	m := make([]byte, 0, len(result)+160)
	m = append(m, `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":`...)
	m = appendJSONString(m, sub.id)
	m = append(m, `,"result":`...)
	m = append(m, result...)
	m = append(m, `,"rpcbenchSeq":`...)
	m = strconv.AppendUint(m, sub.seq, 10)
	m = append(m, `,"rpcbenchStampNs":`...)
	m = strconv.AppendInt(m, due.UnixNano(), 10)
	m = append(m, "}}"...)
	select {
	case sub.wc.notes <- note{m, due, held}:
	default: // the connection is that far behind: this one is lost, as its number shows
	}
}

// appendHeader appends b's header as geth's newHeads notification shows it (members in geth's
// order, the hash last).
func appendHeader(out []byte, b *block) []byte {
	out = append(out, `{"parentHash":`...)
	out = appendDataString(out, b.parent[:])
	out = append(out, `,"sha3Uncles":`...)
	out = appendDataString(out, emptyUnclesHash[:])
	out = append(out, `,"miner":`...)
	out = appendDataString(out, b.miner[:])
	out = append(out, `,"stateRoot":`...)
	out = appendDataString(out, b.stateRoot[:])
	out = append(out, `,"transactionsRoot":`...)
	out = appendDataString(out, b.txRoot[:])
	out = append(out, `,"receiptsRoot":`...)
	out = appendDataString(out, b.receiptsRoot[:])
	out = append(out, `,"logsBloom":"0x`...)
	for range 256 {
		out = append(out, '0', '0')
	}
	out = append(out, `","difficulty":"0x0","number":`...)
	out = appendQuantityString(out, b.number)
	out = append(out, `,"gasLimit":`...)
	out = appendQuantityString(out, blockGasLimit)
	out = append(out, `,"gasUsed":`...)
	out = appendQuantityString(out, b.gasUsed)
	out = append(out, `,"timestamp":`...)
	out = appendQuantityString(out, b.timestamp)
	out = append(out, `,"extraData":`...)
	out = appendDataString(out, extraData)
	out = append(out, `,"mixHash":`...)
	out = appendDataString(out, b.mixHash[:])
	out = append(out, `,"nonce":"0x0000000000000000","baseFeePerGas":`...)
	out = appendQuantityString(out, b.baseFee)
	out = append(out, `,"hash":`...)
	out = appendDataString(out, b.hash[:])
	return append(out, '}')
}

// appendTransferLog appends the Transfer log of token transfer t as geth's logs notification
// shows it.
func appendTransferLog(out []byte, t *tx, blockHash [32]byte, logIndex uint64) []byte {
	out = append(out, `{"address":`...)
	out = appendDataString(out, t.to[:])
	out = append(out, `,"topics":[`...)
	for i, tp := range transferTopics(t) {
		if i > 0 {
			out = append(out, ',')
		}
		out = appendDataString(out, tp[:])
	}
	out = append(out, `],"data":`...)
	out = appendDataString(out, t.input[4+32:4+64])
	out = append(out, `,"blockNumber":`...)
	out = appendQuantityString(out, t.block)
	out = append(out, `,"transactionHash":`...)
	out = appendDataString(out, t.hash[:])
	out = append(out, `,"transactionIndex":`...)
	out = appendQuantityString(out, uint64(t.index))
	out = append(out, `,"blockHash":`...)
	out = appendDataString(out, blockHash[:])
	out = append(out, `,"logIndex":`...)
	out = appendQuantityString(out, logIndex)
	return append(out, `,"removed":false}`...)
}

// stopPublishing ends the block loop, if there is one, and waits for it.
func (s *Server) stopPublishing() {
	s.stopOnce.Do(func() { close(s.stop) })
	if s.blockTime > 0 {
		<-s.published
	}
}
