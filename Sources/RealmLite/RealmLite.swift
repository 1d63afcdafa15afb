// RealmLite: the Swift object layer. See README.md.
import CStorage
