import HTTPCore

print("bench-http")
