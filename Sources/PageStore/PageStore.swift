import PageModel

/// PageStore: the embedded, headless device client.
public enum PageStoreModule {}
