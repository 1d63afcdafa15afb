import RealmLite
print("RealmLite demo")
