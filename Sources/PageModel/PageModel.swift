/// placeholder
public enum PageModelModule {}
