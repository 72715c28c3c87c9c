package io.github.rocksfilter;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A stand-in for an object store: an HTTP/1.1 server on the loopback interface serving byte arrays
 * with single-range requests ({@code Range: bytes=a-b}, {@code bytes=a-}, {@code bytes=-n} →
 * 206 with {@code Content-Range}; an unsatisfiable or malformed range → 416; no range → 200, the
 * whole object), {@code HEAD} for the length, and counting the ranged GETs and the bytes they
 * served. Plus the {@link RangeReader} an application would write over {@link HttpClient}.
 */
final class RangeHttpServer implements AutoCloseable {
    private static final Pattern RANGE = Pattern.compile("bytes=(\\d*)-(\\d*)");

    private final HttpServer server;
    private final Map<String, byte[]> objects = new ConcurrentHashMap<>();
    private final AtomicLong rangeGets = new AtomicLong();
    private final AtomicLong bytesServed = new AtomicLong();
    private final AtomicLong otherRequests = new AtomicLong();

    RangeHttpServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.start();
    }

    /** Serves {@code content} at {@code /name}; returns its URI. */
    URI put(String name, byte[] content) {
        objects.put(name, content);
        return URI.create("http://" + server.getAddress().getHostString() + ":" + server.getAddress().getPort()
                + "/" + name);
    }

    /** Ranged GETs answered with 206 so far. */
    long rangeGets() {
        return rangeGets.get();
    }

    /** Body bytes of those 206 responses. */
    long bytesServed() {
        return bytesServed.get();
    }

    /** HEADs, whole-object GETs and refused requests so far. */
    long otherRequests() {
        return otherRequests.get();
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            byte[] object = objects.get(ex.getRequestURI().getPath().substring(1));
            ex.getResponseHeaders().set("Accept-Ranges", "bytes");
            if (object == null) {
                otherRequests.incrementAndGet();
                ex.sendResponseHeaders(404, -1);
                return;
            }
            long len = object.length;
            if (ex.getRequestMethod().equals("HEAD")) {
                otherRequests.incrementAndGet();
                ex.getResponseHeaders().set("Content-Length", Long.toString(len));
                ex.sendResponseHeaders(200, -1);
                return;
            }
            String range = ex.getRequestHeaders().getFirst("Range");
            if (range == null) {
                otherRequests.incrementAndGet();
                send(ex, 200, object, 0, object.length);
                return;
            }
            Matcher m = RANGE.matcher(range.strip());
            long first;
            long last;
            if (!m.matches() || (m.group(1).isEmpty() && m.group(2).isEmpty())) {
                first = -1;
                last = -1;
            } else if (m.group(1).isEmpty()) { // the last n bytes
                long n = Long.parseLong(m.group(2));
                first = Math.max(0, len - n);
                last = n == 0 ? -1 : len - 1;
            } else {
                first = Long.parseLong(m.group(1));
                last = m.group(2).isEmpty() ? len - 1 : Math.min(len - 1, Long.parseLong(m.group(2)));
            }
            if (first < 0 || first >= len || last < first) {
                otherRequests.incrementAndGet();
                ex.getResponseHeaders().set("Content-Range", "bytes */" + len);
                ex.sendResponseHeaders(416, -1);
                return;
            }
            ex.getResponseHeaders().set("Content-Range", "bytes " + first + "-" + last + "/" + len);
            rangeGets.incrementAndGet();
            bytesServed.addAndGet(last - first + 1);
            send(ex, 206, object, (int) first, (int) (last - first + 1));
        }
    }

    private static void send(HttpExchange ex, int status, byte[] body, int from, int n) throws IOException {
        ex.sendResponseHeaders(status, n == 0 ? -1 : n);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(body, from, n);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }

    /** The object's length, from a HEAD request. */
    static long size(HttpClient http, URI object) throws IOException {
        HttpResponse<Void> r = send(http, HttpRequest.newBuilder(object).method("HEAD",
                HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.discarding());
        if (r.statusCode() != 200) {
            throw new IOException("HEAD " + object + ": HTTP " + r.statusCode());
        }
        return r.headers().firstValueAsLong("Content-Length")
                .orElseThrow(() -> new IOException("HEAD " + object + ": no Content-Length"));
    }

    /**
     * The reader an application would pass to {@link Sst#open(RangeReader, long)}: one ranged GET
     * per call, checking the status and the Content-Range the server answered with, streaming the
     * body into {@code dst}.
     */
    static RangeReader reader(HttpClient http, URI object) {
        return (offset, dst) -> {
            long last = offset + dst.remaining() - 1;
            String range = "bytes=" + offset + "-" + last;
            HttpResponse<java.io.InputStream> r = send(http, HttpRequest.newBuilder(object).header("Range", range).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            try (java.io.InputStream body = r.body()) {
                if (r.statusCode() != 206) {
                    throw new IOException("GET " + object + " " + range + ": HTTP " + r.statusCode());
                }
                String got = r.headers().firstValue("Content-Range").orElse("");
                if (!got.startsWith("bytes " + offset + "-" + last + "/")) {
                    throw new IOException("GET " + object + " " + range + ": Content-Range " + got);
                }
                byte[] chunk = new byte[64 << 10];
                while (dst.hasRemaining()) {
                    int n = body.read(chunk, 0, Math.min(chunk.length, dst.remaining()));
                    if (n < 0) {
                        throw new IOException("GET " + object + " " + range + ": body ended " + dst.remaining()
                                + " bytes early");
                    }
                    dst.put(chunk, 0, n);
                }
            }
        };
    }

    private static <T> HttpResponse<T> send(HttpClient http, HttpRequest request, HttpResponse.BodyHandler<T> body)
            throws IOException {
        try {
            return http.send(request, body);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException(request.method() + " " + request.uri() + ": interrupted");
        }
    }
}
