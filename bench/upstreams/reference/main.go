// Reference BFF for bench/upstreams: the same composition as flow-bff's ProductPageProvider in Go's net/http.
// GET /v1/pages/product-live?productID=ID fetches the catalog (required) and reviews (degradable, 300 ms) from
// upstream concurrently and answers the same envelope (first chunk of 2 sections + signed HMAC-SHA256 cursor),
// with ETag, Cache-Control: no-cache and gzip. POST /v1/actions/live.cart.add posts to the cart upstream.
package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"strings"
	"sync"
	"time"
)

type M = map[string]any

var (
	client = &http.Client{Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 64,
		IdleConnTimeout: 90 * time.Second, DisableCompression: true}}
	catalogURL, reviewsURL, cartURL string
	key                             = []byte("reference-cursor-key-reference-cursor-key")
)

func text(id, t, style string) M {
	return M{"id": id, "type": "text", "content": M{"text": t, "style": style}}
}

func getJSON(ctx context.Context, url string, out any) error {
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

func cursor(payload M) string {
	b, _ := json.Marshal(payload)
	p := base64.RawURLEncoding.EncodeToString(b)
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(p))
	return p + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

var gzipWriters = sync.Pool{New: func() any { zw, _ := gzip.NewWriterLevel(nil, 5); return zw }}

func write(w http.ResponseWriter, r *http.Request, status int, cache string, v any) {
	body, _ := json.Marshal(v)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", cache)
	h.Set("Vary", "Accept-Encoding")
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:8])
	if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		var buf bytes.Buffer
		zw := gzipWriters.Get().(*gzip.Writer) // pooled: a fresh writer allocates ~800 KB of deflate state
		zw.Reset(&buf)
		zw.Write(body)
		zw.Close()
		gzipWriters.Put(zw)
		body, etag = buf.Bytes(), etag+`-gz`
		h.Set("Content-Encoding", "gzip")
	}
	if cache != "no-store" {
		h.Set("ETag", etag+`"`)
	}
	w.WriteHeader(status)
	w.Write(body)
}

func page(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("productID")
	ctx, cancel := context.WithTimeout(r.Context(), time.Second)
	defer cancel()
	type review struct{ Author, Text string }
	var reviews struct {
		Rating float64
		Count  int
		Items  []review
	}
	done := make(chan error, 1)
	go func() {
		rctx, rcancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer rcancel()
		done <- getJSON(rctx, reviewsURL+"/reviews?productID="+id, &reviews)
	}()
	var product struct{ ID, Title, Price, ImageURL, Description string }
	if err := getJSON(ctx, catalogURL+"/products/"+id, &product); err != nil {
		write(w, r, 502, "no-store", M{"code": "upstream_unavailable", "detail": err.Error()})
		return
	}
	header := []M{text("cart.badge", "Cart", "caption")}
	if product.ImageURL != "" {
		header = append(header, M{"id": "product.image", "type": "image",
			"content": M{"url": product.ImageURL, "alt": product.Title, "aspectRatio": 1}})
	}
	summary := []M{text("product.title", product.Title, "title"), text("product.price", product.Price, "price")}
	if product.Description != "" {
		summary = append(summary, text("product.description", product.Description, "body"))
	}
	envelope := M{"schemaVersion": 1, "kind": "page"}
	var reviewsSection M
	if err := <-done; err != nil {
		reviewsSection = M{"id": "product.reviews", "title": "Reviews",
			"widgets": []M{text("reviews.unavailable", "Reviews are unavailable right now.", "caption")}}
		envelope["degradations"] = []M{{"sectionID": "product.reviews", "code": "upstream_fallback"}}
	} else {
		widgets := []M{{"id": "reviews.rating", "type": "key_value", "content": M{"label": "Rating",
			"value": fmt.Sprintf("%v ★ (%d reviews)", reviews.Rating, reviews.Count)}}}
		for i, it := range reviews.Items {
			if i < 5 {
				widgets = append(widgets, M{"id": fmt.Sprintf("reviews.%d", i), "type": "list_row",
					"content": M{"title": it.Author, "subtitle": it.Text}})
			}
		}
		reviewsSection = M{"id": "product.reviews", "title": "Reviews", "widgets": widgets}
	}
	envelope["page"] = M{"id": "product-live", "title": product.Title, "header": header,
		"sections": []M{{"id": "product.summary", "widgets": summary}, reviewsSection}, // pageSize 2
		"footer": []M{
			{"id": "product.addToCart", "type": "button", "content": M{"title": "Add to cart"},
				"actions": M{"tap": M{"type": "api", "name": "live.cart.add", "payload": M{"productID": id}}}},
			{"id": "product.share", "type": "button", "content": M{"title": "Share", "style": "secondary"},
				"actions": M{"tap": M{"type": "deeplink", "url": "larder://share/products/" + id}}}},
		"pagination": M{"hasMore": true, "postback": cursor(M{"p": "product-live", "v": "00d80f528db121bd", "o": 2,
			"q": M{"productID": id}})}}
	write(w, r, 200, "no-cache", envelope)
}

func cartAdd(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Payload struct{ ProductID string } `json:"payload"`
	}
	if json.NewDecoder(r.Body).Decode(&req) != nil || req.Payload.ProductID == "" {
		write(w, r, 400, "no-store", M{"code": "invalid_request"})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 300*time.Millisecond)
	defer cancel()
	body, _ := json.Marshal(M{"productID": req.Payload.ProductID})
	up, _ := http.NewRequestWithContext(ctx, "POST", cartURL+"/cart/items", bytes.NewReader(body))
	up.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(up)
	var cart struct{ Count int }
	if err == nil {
		err = json.NewDecoder(resp.Body).Decode(&cart)
		resp.Body.Close()
	}
	if err != nil {
		write(w, r, 502, "no-store", M{"code": "upstream_unavailable"})
		return
	}
	plural := "s"
	if cart.Count == 1 {
		plural = ""
	}
	write(w, r, 200, "no-store", M{"schemaVersion": 1, "kind": "actionResponse",
		"mutations": []M{{"type": "replaceWidget", "id": "cart.badge",
			"widget": text("cart.badge", fmt.Sprintf("Cart: %d", cart.Count), "caption")}},
		"effects": []M{{"type": "toast", "message": fmt.Sprintf("Added to your cart (%d item%s)", cart.Count, plural)}}})
}

func main() {
	port := flag.Int("port", 8090, "listen port (127.0.0.1)")
	flag.StringVar(&catalogURL, "catalog", "", "catalog base URL")
	flag.StringVar(&reviewsURL, "reviews", "", "reviews base URL")
	flag.StringVar(&cartURL, "cart", "", "cart base URL")
	flag.Parse()
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/pages/product-live", page)
	mux.HandleFunc("/v1/actions/live.cart.add", cartAdd)
	log.Fatal(http.ListenAndServe(fmt.Sprintf("127.0.0.1:%d", *port), mux))
}
