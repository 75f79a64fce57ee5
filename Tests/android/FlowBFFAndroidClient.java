import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.concurrent.TimeUnit;
import okhttp3.Cache;
import okhttp3.ConnectionPool;
import okhttp3.Handshake;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * An Android app's HTTP stack against flow-bff's mock backend: Debian's OkHttp 3.13 (the library Android apps
 * ship) with its on-disk Cache and default retries, as an app would configure it. Run by scripts/android-client-test
 * against `flow-bff serve --dev` on the bundled pages. Checks that the app's own cache never answers for the mock (a
 * fault header, a session's copy after an action, a scenario), that revalidation costs a 304, pagination to the
 * end, an Idempotency-Key replay, problem documents, and the mock's response headers. Prints one line per check;
 * exits 1 when any fails.
 *
 * With `proxy`, against `serve --dev --upstream URL` instead: a page from the upstream, which the upstream lets
 * clients cache for 5 minutes, still reaches the mock (faults), revalidates through it, and paginates to the end.
 *
 * With `https CA_FILE`, against the HTTPS port of `serve --dev --tls` (docs/mock.md, "HTTPS for devices"): the
 * client trusts the development CA as a debug build's network_security_config makes it, and runs every mock-mode
 * check over TLS; a client with only the JDK's trust store fails its handshake.
 *
 * Usage: java -cp okhttp.jar:okio.jar:. FlowBFFAndroidClient BASE_URL CACHE_DIR SERVER_IDLE_TIMEOUT_MS
 *        [proxy | https CA_FILE]
 */
public final class FlowBFFAndroidClient {
    private static final MediaType JSON = MediaType.get("application/json");
    private static final Pattern POSTBACK = Pattern.compile("\"postback\"\\s*:\\s*\"([^\"]+)\"");
    private static final Pattern SECTION_ID = Pattern.compile("\"sections\"\\s*:\\s*\\[");

    private final String base;
    private final long serverIdleMillis;
    private final OkHttpClient client;
    private final List<String> failures = new ArrayList<>();

    private FlowBFFAndroidClient(String base, File cacheDirectory, long serverIdleMillis, String caFile)
            throws IOException, GeneralSecurityException {
        this.base = base;
        this.serverIdleMillis = serverIdleMillis;
        // What an app sets up: a disk cache; retries on connection failure stay on (OkHttp's default).
        OkHttpClient.Builder builder = new OkHttpClient.Builder().cache(new Cache(cacheDirectory, 10L * 1024 * 1024));
        if (caFile != null) {
            X509TrustManager trust = trusting(caFile);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new X509TrustManager[] {trust}, null);
            builder.sslSocketFactory(context.getSocketFactory(), trust);
        }
        this.client = builder.build();
    }

    /** A trust manager for the certificates of one PEM file (what `<certificates src="user" />` does on Android). */
    private static X509TrustManager trusting(String caFile) throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        try (InputStream input = new FileInputStream(caFile)) {
            int index = 0;
            for (Certificate certificate : CertificateFactory.getInstance("X.509").generateCertificates(input)) {
                store.setCertificateEntry("flow-bff-" + index++, certificate);
            }
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(store);
        return (X509TrustManager) factory.getTrustManagers()[0];
    }

    public static void main(String[] arguments) throws Exception {
        boolean proxy = arguments.length == 4 && arguments[3].equals("proxy");
        boolean https = arguments.length == 5 && arguments[3].equals("https");
        if (arguments.length != 3 && !proxy && !https) {
            System.err.println(
                    "usage: FlowBFFAndroidClient BASE_URL CACHE_DIR SERVER_IDLE_TIMEOUT_MS [proxy | https CA_FILE]");
            System.exit(64);
        }
        FlowBFFAndroidClient app = new FlowBFFAndroidClient(
                arguments[0], new File(arguments[1]), Long.parseLong(arguments[2]), https ? arguments[4] : null);
        if (proxy) {
            app.runProxied();
        } else if (https) {
            app.runOverHTTPS(new File(arguments[1] + "-untrusting"));
        } else {
            app.run();
        }
    }

    /**
     * Every mock-mode check over TLS, after two of its own: the handshake is TLS 1.3 with HTTP/1.1, and a client
     * that trusts only the JDK's store cannot connect.
     */
    private void runOverHTTPS(File otherCache) throws IOException {
        try (Response response = get("/v1/pages/home", null, null)) {
            Handshake handshake = response.handshake();
            check(
                    "HTTPS with the development CA: TLS 1.3, HTTP/1.1",
                    response.code() == 200 && handshake != null && "TLSv1.3".equals(handshake.tlsVersion().javaName())
                            && response.protocol().toString().equals("http/1.1"),
                    "status " + response.code() + ", "
                            + (handshake == null ? "no handshake" : handshake.tlsVersion().javaName()) + ", "
                            + response.protocol());
        }
        OkHttpClient untrusting = new OkHttpClient.Builder().cache(new Cache(otherCache, 1024 * 1024)).build();
        String outcome;
        try (Response response = untrusting.newCall(new Request.Builder().url(base + "/healthz").build()).execute()) {
            outcome = "answered " + response.code();
        } catch (SSLHandshakeException expected) {
            outcome = "handshake refused";
        }
        untrusting.connectionPool().evictAll();
        check("a client that does not trust the CA fails its handshake", outcome.equals("handshake refused"), outcome);
        run();
    }

    /**
     * Against `serve --dev --upstream URL` whose local folder lacks feed (docs/proxy.md): the upstream's feed, cached
     * by the upstream's rules (`public, max-age=300`) if OkHttp were left to them, must still reach the mock.
     */
    private void runProxied() throws IOException {
        aProxiedPageIsNotAnsweredFromTheCache();
        aProxiedPageRevalidatesThroughTheProxy();
        paginationReachesTheEnd();
        finish();
    }

    /** GET feed (from the upstream), then GET feed with `X-Flow-Mock: status=503`: the 503, not the cached page. */
    private void aProxiedPageIsNotAnsweredFromTheCache() throws IOException {
        try (Response response = get("/v1/pages/feed", null, null)) {
            check(
                    "a proxied page says where it came from and that it obeys the contract",
                    response.code() == 200 && "upstream".equals(response.header("X-Flow-Source"))
                            && "ok".equals(response.header("X-Flow-Contract")),
                    "status " + response.code() + ", X-Flow-Source " + response.header("X-Flow-Source")
                            + ", X-Flow-Contract " + response.header("X-Flow-Contract"));
            check(
                    "the mock's Cache-Control, the upstream's kept aside",
                    "no-cache".equals(response.header("Cache-Control"))
                            && "public, max-age=300".equals(response.header("X-Flow-Upstream-Cache-Control")),
                    "Cache-Control " + response.header("Cache-Control") + ", upstream's "
                            + response.header("X-Flow-Upstream-Cache-Control"));
        }
        try (Response response = get("/v1/pages/feed", "X-Flow-Mock", "status=503")) {
            check(
                    "a fault header on a proxied page is not answered from the cache",
                    response.code() == 503 && response.networkResponse() != null,
                    "status " + response.code() + (response.networkResponse() == null ? " from the cache" : ""));
        }
    }

    /** Feed read twice: OkHttp asks (If-None-Match), the upstream's 304 comes back through the proxy. */
    private void aProxiedPageRevalidatesThroughTheProxy() throws IOException {
        String first;
        try (Response response = get("/v1/pages/feed", null, null)) {
            first = response.body().string();
        }
        try (Response response = get("/v1/pages/feed", null, null)) {
            String second = response.body().string();
            Response network = response.networkResponse();
            check(
                    "a proxied page revalidates through the proxy with a 304",
                    response.code() == 200 && network != null && network.code() == 304 && second.equals(first),
                    "status " + response.code() + ", network " + (network == null ? "none" : network.code()));
        }
    }

    private void run() throws IOException {
        aFaultHeaderIsNotAnsweredFromTheCache();
        aSessionSeesItsCopyAfterAnActionNotTheCachedPage();
        aScenarioIsNotAnsweredFromTheCache();
        revalidationCostsA304();
        paginationReachesTheEnd();
        anIdempotencyKeyIsReplayed();
        problemsAreProblemDocuments();
        simulatedAnswersSaySo();
        faultsAsOkHttpSeesThem();
        aPoolThatOutlivesTheServersIdleTimeoutRetriesInSilence();
        finish();
    }

    private void finish() {
        System.out.println(failures.isEmpty() ? "all checks passed" : failures.size() + " check(s) failed");
        client.dispatcher().executorService().shutdown();
        client.connectionPool().evictAll();
        if (!failures.isEmpty()) System.exit(1);
    }

    /** GET home, then GET home with `X-Flow-Mock: status=503`: the second must reach the mock and be its 503. */
    private void aFaultHeaderIsNotAnsweredFromTheCache() throws IOException {
        get("/v1/pages/home", null, null).close();
        try (Response response = get("/v1/pages/home", "X-Flow-Mock", "status=503")) {
            check(
                    "a fault header is not answered from the cache",
                    response.code() == 503,
                    "status " + response.code() + (response.networkResponse() == null ? " from the cache" : ""));
        }
    }

    /** The promo is removed for session S; S's next GET of home must show its copy, not the cached page. */
    private void aSessionSeesItsCopyAfterAnActionNotTheCachedPage() throws IOException {
        String session = "android-" + UUID.randomUUID().toString().substring(0, 8);
        get("/v1/pages/home", null, null).close();
        Request action = new Request.Builder()
                .url(base + "/v1/actions/home.dismissPromo")
                .header("X-Flow-Session", session)
                .post(RequestBody.create(JSON, "{\"pageID\": \"home\", \"widgetID\": \"promo.dismiss\", \"event\": \"tap\"}"))
                .build();
        try (Response response = client.newCall(action).execute()) {
            check("home.dismissPromo answers", response.code() == 200, "status " + response.code());
        }
        try (Response response = get("/v1/pages/home", "X-Flow-Session", session)) {
            String body = response.body().string();
            check(
                    "a session sees its copy after an action, not the cached page",
                    response.code() == 200 && !body.contains("promo.freeShipping"),
                    "status " + response.code() + ", promo " + (body.contains("promo.freeShipping") ? "still shown" : "gone")
                            + (response.networkResponse() == null ? ", from the cache" : ""));
        }
    }

    /** GET product, then GET product with `X-Flow-Scenario: p-1042`: the scenario's page, not the cached one. */
    private void aScenarioIsNotAnsweredFromTheCache() throws IOException {
        get("/v1/pages/product", null, null).close();
        try (Response response = get("/v1/pages/product", "X-Flow-Scenario", "p-1042")) {
            String body = response.body().string();
            check(
                    "a scenario is not answered from the cache",
                    response.code() == 200 && body.contains("Stoneware Espresso Cups"),
                    "status " + response.code() + (response.networkResponse() == null ? ", from the cache" : ""));
        }
    }

    /** A page read twice: the second use asks the server (If-None-Match) and gets a 304, the body from the cache. */
    private void revalidationCostsA304() throws IOException {
        String first;
        try (Response response = get("/v1/pages/cart", null, null)) {
            first = response.body().string();
        }
        try (Response response = get("/v1/pages/cart", null, null)) {
            String second = response.body().string();
            Response network = response.networkResponse();
            check(
                    "revalidation costs a 304",
                    response.code() == 200 && network != null && network.code() == 304
                            && response.cacheResponse() != null && second.equals(first),
                    "status " + response.code() + ", network " + (network == null ? "none" : network.code()));
        }
    }

    /** Feed, then every postback until the last chunk. */
    private void paginationReachesTheEnd() throws IOException {
        String path = "/v1/pages/feed";
        int chunks = 0;
        while (path != null && chunks < 100) {
            try (Response response = get(path, null, null)) {
                String body = response.body().string();
                if (response.code() != 200 || !SECTION_ID.matcher(body).find()) {
                    check("pagination reaches the end", false, "chunk " + chunks + ": status " + response.code());
                    return;
                }
                chunks++;
                Matcher postback = POSTBACK.matcher(body);
                path = postback.find()
                        ? "/v1/pages/feed/next?postback=" + URLEncoder.encode(postback.group(1), StandardCharsets.UTF_8)
                        : null;
            }
        }
        check("pagination reaches the end", path == null && chunks > 1, chunks + " chunks");
    }

    /** The same action with the same Idempotency-Key twice: the second is the first's answer, replayed. */
    private void anIdempotencyKeyIsReplayed() throws IOException {
        String key = UUID.randomUUID().toString();
        String body = "{\"pageID\": \"cart\", \"widgetID\": \"qty.p-3307\", \"event\": \"change\", \"value\": 4, "
                + "\"payload\": {\"productID\": \"p-3307\"}}";
        String[] answers = new String[2];
        String replayed = null;
        for (int attempt = 0; attempt < 2; attempt++) {
            Request request = new Request.Builder()
                    .url(base + "/v1/actions/cart.setQuantity")
                    .header("Idempotency-Key", key)
                    .post(RequestBody.create(JSON, body))
                    .build();
            try (Response response = client.newCall(request).execute()) {
                answers[attempt] = response.code() + " " + response.body().string();
                replayed = response.header("Idempotent-Replayed");
            }
        }
        check(
                "an Idempotency-Key is replayed",
                answers[0].startsWith("200 ") && answers[0].equals(answers[1]) && "true".equals(replayed),
                "first " + answers[0].substring(0, 3) + ", second " + answers[1].substring(0, 3) + ", replayed " + replayed);
    }

    /** An unknown page: 404 application/problem+json with the stable code. */
    private void problemsAreProblemDocuments() throws IOException {
        try (Response response = get("/v1/pages/no-such-page", null, null)) {
            String type = response.header("Content-Type", "");
            String body = response.body().string();
            check(
                    "problems are problem documents",
                    response.code() == 404 && type.startsWith("application/problem+json")
                            && body.replace(" ", "").contains("\"code\":\"page_not_found\""),
                    "status " + response.code() + ", " + type);
        }
    }

    /** A simulated latency is named in `X-Flow-Mock-Applied`. */
    private void simulatedAnswersSaySo() throws IOException {
        try (Response response = get("/v1/pages/home", "X-Flow-Mock", "latency=20")) {
            String applied = response.header("X-Flow-Mock-Applied");
            check(
                    "simulated answers say so",
                    response.code() == 200 && applied != null && applied.contains("latency"),
                    "status " + response.code() + ", X-Flow-Mock-Applied " + applied);
        }
    }

    /**
     * Each network fault of `X-Flow-Mock` on a POST, as the app sees it: what OkHttp throws (or answers), how many
     * attempts it made (a network interceptor counts them) and how many requests the mock journaled for the
     * session. Prints the table docs/mock.md shows; checks that the mock saw every attempt OkHttp made and that a
     * transport fault surfaces as an IOException while a status fault is a response.
     */
    private void faultsAsOkHttpSeesThem() throws IOException {
        String[] faults = {"reset", "empty", "truncate=10B", "status=503", "status=503; retry-after=0"};
        System.out.println("fault | OkHttp | attempts | journaled");
        for (String fault : faults) {
            String session = "fault-" + UUID.randomUUID().toString().substring(0, 8);
            AtomicInteger attempts = new AtomicInteger();
            OkHttpClient counting = client.newBuilder()
                    .addNetworkInterceptor(chain -> {
                        attempts.incrementAndGet();
                        return chain.proceed(chain.request());
                    })
                    .build();
            Request request = new Request.Builder()
                    .url(base + "/v1/actions/home.dismissPromo")
                    .header("X-Flow-Session", session)
                    .header("X-Flow-Mock", fault)
                    .post(RequestBody.create(JSON, "{\"pageID\": \"home\", \"widgetID\": \"promo.dismiss\", \"event\": \"tap\"}"))
                    .build();
            String outcome;
            boolean transport;
            try (Response response = counting.newCall(request).execute()) {
                response.body().string();
                outcome = "HTTP " + response.code();
                transport = false;
            } catch (IOException error) {
                Throwable cause = error.getCause();
                outcome = error.getClass().getSimpleName() + ": " + error.getMessage()
                        + (cause == null ? "" : " (" + cause.getClass().getSimpleName() + ": " + cause.getMessage() + ")");
                transport = true;
            }
            int journaled = journalCount(session);
            System.out.println(fault + " | " + outcome + " | " + attempts.get() + " | " + journaled);
            check(
                    "the mock journaled every attempt of " + fault,
                    journaled == attempts.get(),
                    attempts.get() + " attempts, " + journaled + " journaled");
            check(
                    fault + " reaches the app as " + (fault.startsWith("status") ? "a response" : "an IOException"),
                    transport != fault.startsWith("status"),
                    outcome);
        }
    }

    /**
     * The pool's keep-alive against the server's idle timeout (scaled down: the script runs the server with a short
     * one). A GET on a pooled connection the server already closed fails and is retried on a new one, unseen by the
     * app and the journal (OkHttp checks a pooled connection before a POST, not before a GET); a pool whose
     * keep-alive is below the server's idle timeout never hands out such a connection.
     */
    private void aPoolThatOutlivesTheServersIdleTimeoutRetriesInSilence() throws IOException {
        long pause = serverIdleMillis + serverIdleMillis / 2;
        int defaultPool = attemptsOfASecondGet(new ConnectionPool(), pause);
        check(
                "a GET after the server's idle timeout costs OkHttp's default pool a hidden attempt",
                defaultPool == 2,
                defaultPool + " attempts");
        int shorterPool = attemptsOfASecondGet(new ConnectionPool(5, serverIdleMillis / 2, TimeUnit.MILLISECONDS), pause);
        check(
                "a pool keep-alive below the server's idle timeout costs none",
                shorterPool == 1,
                shorterPool + " attempts");
    }

    /** Network attempts of a GET made `pauseMillis` after a first one, through `pool`. */
    private int attemptsOfASecondGet(ConnectionPool pool, long pauseMillis) throws IOException {
        AtomicInteger attempts = new AtomicInteger();
        // The app's client (its TLS trust too), with a pool of its own and no cache.
        OkHttpClient pooled = client.newBuilder()
                .cache(null)
                .connectionPool(pool)
                .addNetworkInterceptor(chain -> {
                    attempts.incrementAndGet();
                    return chain.proceed(chain.request());
                })
                .build();
        Request request = new Request.Builder().url(base + "/healthz").build();
        try (Response response = pooled.newCall(request).execute()) {
            response.body().string();
        }
        try {
            Thread.sleep(pauseMillis);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
        attempts.set(0);
        try (Response response = pooled.newCall(request).execute()) {
            response.body().string();
        }
        pooled.connectionPool().evictAll();
        return attempts.get();
    }

    /** How many requests the mock journaled for `session` (loopback reads the admin API without a token). */
    private int journalCount(String session) throws IOException {
        try (Response response = get("/__admin/journal/count?session=" + session, null, null)) {
            Matcher count = Pattern.compile("\"count\"\\s*:\\s*(\\d+)").matcher(response.body().string());
            return count.find() ? Integer.parseInt(count.group(1)) : -1;
        }
    }

    private Response get(String path, String header, String value) throws IOException {
        Request.Builder request = new Request.Builder().url(base + path);
        if (header != null) request.header(header, value);
        return client.newCall(request.build()).execute();
    }

    private void check(String name, boolean passed, String detail) {
        System.out.println((passed ? "ok     " : "FAILED ") + name + " (" + detail + ")");
        if (!passed) failures.add(name);
    }
}
