public enum BFFServerPlaceholder {}
