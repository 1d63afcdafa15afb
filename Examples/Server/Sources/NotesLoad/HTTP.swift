import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// One HTTP/1.1 request as the load generator sends it.
struct Request: Sendable {
    var method: HTTPMethod
    var uri: String
    var body: String?

    static func get(_ uri: String) -> Request { Request(method: .GET, uri: uri) }
}

/// A complete response.
struct Response: Sendable {
    var status: HTTPResponseStatus
    var body: ByteBuffer

    var text: String { String(buffer: body) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: Data(body.readableBytesView))
    }

    /// True if the body contains `needle` (cheap check used on every response).
    func contains(_ needle: [UInt8]) -> Bool {
        body.readableBytesView.firstRange(of: needle) != nil
    }
}

extension Request {
    /// Writes the request's parts (keep-alive; a body is sent as JSON).
    func write(to context: ChannelHandlerContext, host: String) {
        var headers = HTTPHeaders([("Host", host)])
        var buffer: ByteBuffer?
        if let body {
            buffer = context.channel.allocator.buffer(string: body)
            headers.add(name: "Content-Type", value: "application/json")
            headers.add(name: "Content-Length", value: String(buffer!.readableBytes))
        }
        let head = HTTPRequestHead(version: .http1_1, method: method, uri: uri, headers: headers)
        context.write(NIOAny(HTTPClientRequestPart.head(head)), promise: nil)
        if let buffer { context.write(NIOAny(HTTPClientRequestPart.body(.byteBuffer(buffer))), promise: nil) }
        context.writeAndFlush(NIOAny(HTTPClientRequestPart.end(nil)), promise: nil)
    }
}

/// Gathers one response from its parts.
struct ResponseAssembler {
    private var status: HTTPResponseStatus = .ok
    private var body: ByteBuffer?

    /// The complete response once `.end` arrives.
    mutating func feed(_ part: HTTPClientResponsePart) -> Response? {
        switch part {
        case .head(let head):
            status = head.status
            body = nil
        case .body(var chunk):
            if body == nil { body = chunk } else { body!.writeBuffer(&chunk) }
        case .end:
            let response = Response(status: status, body: body ?? ByteBuffer())
            body = nil
            return response
        }
        return nil
    }
}

/// A keep-alive connection for one request at a time, from async code: used
/// for the correctness checks and to seed the data, not for the timed load.
final class Connection: Sendable {
    private let channel: any Channel

    private init(channel: any Channel) { self.channel = channel }

    static func open(group: any EventLoopGroup, host: String, port: Int) async throws -> Connection {
        let channel = try await ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(OneAtATimeHandler(host: host))
                }
            }
            .connect(host: host, port: port).get()
        return Connection(channel: channel)
    }

    func send(_ request: Request) async throws -> Response {
        let promise = channel.eventLoop.makePromise(of: Response.self)
        channel.writeAndFlush(Pending(request: request, promise: promise), promise: nil)
        return try await promise.futureResult.get()
    }

    func close() async {
        try? await channel.close()
    }
}

struct Pending: Sendable {
    let request: Request
    let promise: EventLoopPromise<Response>
}

private final class OneAtATimeHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = Pending
    typealias OutboundOut = HTTPClientRequestPart

    private let host: String
    private var waiting: EventLoopPromise<Response>?
    private var assembler = ResponseAssembler()

    init(host: String) { self.host = host }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let pending = unwrapOutboundIn(data)
        precondition(waiting == nil, "one request at a time")
        waiting = pending.promise
        pending.request.write(to: context, host: host)
        promise?.succeed()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if let response = assembler.feed(unwrapInboundIn(data)) {
            let promise = waiting
            waiting = nil
            promise?.succeed(response)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        waiting?.fail(error)
        waiting = nil
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        waiting?.fail(ChannelError.ioOnClosedChannel)
        waiting = nil
    }
}
