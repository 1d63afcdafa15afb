import Foundation

// Every Object and EmbeddedObject subclass in the program, for the default
// schema (Realm.Configuration.objectTypes nil), as RealmSwift finds them
// through the Objective-C runtime.
//
// Linux has no class list to ask, but every Swift image carries a
// `swift5_type_metadata` section: one record per nominal type it defines
// (the records the runtime itself searches for `_typeByName`). The runtime
// keeps the sections of every image loaded so far, and hands them out
// through `swift_enumerateAllMetadataSections` (exported for tools such as
// swift-testing; the MetadataSections layout is the stdlib's shim header,
// versioned, and `swift5_type_metadata` has been in it from version 1).
// Each record leads to a type context descriptor, whose layout is ABI:
//
//   record:     Int32 relative pointer, low 2 bits the kind (0 direct
//               descriptor, 1 indirect, 2-3 Objective-C: none here)
//   descriptor: +0 flags (kind in bits 0-4, 16 = class; 0x80 generic),
//               +4 parent (relative, indirect if bit 0), +8 name,
//               +12 metadata access function, +20 (classes) superclass as a
//               mangled name, whose leading symbolic reference (byte 1:
//               direct, 2: indirect, then an Int32 relative offset) names
//               the superclass's descriptor.
//
// So the subclasses of ObjectBase are found by following superclass
// descriptors, without instantiating any other class's metadata; only the
// model classes found get their metadata (their access function). Generic
// classes are skipped (they have no metadata without arguments, and cannot
// be models); private and local classes are found like any other. A
// superclass named by a mangled string rather than a symbolic reference
// (not emitted for Swift classes) is not followed.
//
// Cost: one pass over the records of every loaded image, once per image
// per process (OpeningTests measures it).

@_silgen_name("swift_enumerateAllMetadataSections")
private func swiftEnumerateAllMetadataSections(
    _ body: @convention(c) (_ sections: UnsafeRawPointer, _ context: UnsafeMutableRawPointer) -> Bool,
    _ context: UnsafeMutableRawPointer)

/// The access function of a non-generic type's metadata: swiftcc
/// `MetadataResponse(MetadataRequest)`. With no self, error or context
/// argument, swiftcc passes the request and returns the metadata in the
/// same registers as the C convention (x86-64: rdi -> rax; arm64: x0 -> x0).
private typealias MetadataAccessor = @convention(c) (Int) -> UnsafeRawPointer?

enum ProgramClasses {
    /// Images scanned so far (by base address) and the model classes found.
    private static let scanned = Protected<(images: Set<UInt>, classes: [ObjectBase.Type])>(([], []))

    /// Every non-generic subclass of Object or EmbeddedObject in the images
    /// loaded now, in a stable order; images loaded since the last call
    /// are scanned now.
    static func all() -> [ObjectBase.Type] {
        let sections = loadedSections()
        var report: String?
        let classes = scanned.withLock { state in
            let fresh = sections.filter { !state.images.contains($0.base) }
            guard !fresh.isEmpty else { return state.classes }
            let started = DispatchTime.now().uptimeNanoseconds
            let (found, records) = scan(fresh)
            state.images.formUnion(fresh.map(\.base))
            state.classes += found
            if LogGate.enabled(.detail) {
                report = "Found \(found.count) model classes among \(records) types of \(fresh.count) images in \(elapsedMilliseconds(since: started)) ms"
            }
            return state.classes
        }
        if let report { realmLog(.detail, Category.sdk, report) } // outside the lock
        return classes
    }

    /// A scan of every loaded image, bypassing the cache (for measuring).
    static func scanAllImages() -> (classes: [ObjectBase.Type], records: Int) { scan(loadedSections()) }

    private static func scan(_ sections: [Section]) -> (classes: [ObjectBase.Type], records: Int) {
        var records = 0
        var found: [ObjectBase.Type] = []
        var walker = SuperclassWalker()
        for section in sections {
            records += section.length / 4
            for offset in stride(from: 0, to: section.length - 3, by: 4) {
                guard let descriptor = typeDescriptor(section.start + offset) else { continue }
                if let type = walker.modelClass(descriptor) { found.append(type) }
            }
        }
        return (found, records)
    }

    private struct Section { let base: UInt; let start: UnsafeRawPointer; let length: Int }

    /// The runtime's list of images, copied out first: it holds its lock
    /// while calling back, and metadata access may need that lock.
    private static func loadedSections() -> [Section] {
        var sections: [Section] = []
        withUnsafeMutablePointer(to: &sections) { list in
            swiftEnumerateAllMetadataSections({ raw, context in
                let sections = raw.assumingMemoryBound(to: MetadataSectionsPrefix.self).pointee
                if sections.version >= 1, sections.typeMetadata.length > 0, let start = UnsafeRawPointer(bitPattern: sections.typeMetadata.start) {
                    context.assumingMemoryBound(to: [Section].self).pointee.append(
                        Section(base: UInt(bitPattern: sections.baseAddress), start: start, length: sections.typeMetadata.length))
                }
                return true
            }, UnsafeMutableRawPointer(list))
        }
        return sections
    }

    /// The type descriptor a `swift5_type_metadata` record points to.
    private static func typeDescriptor(_ record: UnsafeRawPointer) -> UnsafeRawPointer? {
        let raw = record.loadUnaligned(as: Int32.self)
        let target = record + Int(raw & ~3)
        switch raw & 3 {
        case 0: return target
        case 1: return target.load(as: UnsafeRawPointer?.self)
        default: return nil
        }
    }
}

/// The first fields of the runtime's MetadataSections (SwiftShims'
/// MetadataSections.h): the ones read here.
private struct MetadataSectionsPrefix {
    struct Range { let start: UInt; let length: Int }
    let version: UInt
    let baseAddress: UnsafeRawPointer?
    let unused0: UnsafeRawPointer?
    let unused1: UnsafeRawPointer?
    let protocols: Range
    let protocolConformances: Range
    let typeMetadata: Range
}

/// Decides, descriptor by descriptor, whether a class descends from
/// ObjectBase, remembering the answer for every superclass on the way.
private struct SuperclassWalker {
    private var known: [UnsafeRawPointer: Bool] = [:]

    /// The model class `descriptor` describes, if it is one.
    mutating func modelClass(_ descriptor: UnsafeRawPointer) -> ObjectBase.Type? {
        let flags = descriptor.load(as: UInt32.self)
        guard flags & 0x1F == 16, flags & 0x80 == 0, descendsFromObjectBase(descriptor),
              !isRealmLiteBase(descriptor),
              let accessor = relative(descriptor + 12),
              let metadata = unsafeBitCast(accessor, to: MetadataAccessor.self)(0) else { return nil }
        let type = unsafeBitCast(metadata, to: Any.Type.self)
        guard let model = type as? ObjectBase.Type, model is Object.Type || model is EmbeddedObject.Type else { return nil }
        return model
    }

    private mutating func descendsFromObjectBase(_ descriptor: UnsafeRawPointer) -> Bool {
        var chain: [UnsafeRawPointer] = []
        var current: UnsafeRawPointer? = descriptor
        var answer = false
        while let class_ = current {
            if let cached = known[class_] { answer = cached; break }
            if isObjectBase(class_) { answer = true; break }
            chain.append(class_)
            if chain.count > 64 { break } // not a real hierarchy
            current = superclass(of: class_)
        }
        for visited in chain { known[visited] = answer }
        return answer
    }

    /// The descriptor named by the leading symbolic reference of a class's
    /// superclass mangled name (also for a bound generic superclass).
    private func superclass(of descriptor: UnsafeRawPointer) -> UnsafeRawPointer? {
        guard descriptor.load(as: UInt32.self) & 0x1F == 16, let mangled = relative(descriptor + 20) else { return nil }
        let reference = mangled + 1
        switch mangled.load(as: UInt8.self) {
        case 1: return relative(reference)
        case 2: return relative(reference)?.load(as: UnsafeRawPointer?.self)
        default: return nil
        }
    }

    private func isObjectBase(_ descriptor: UnsafeRawPointer) -> Bool {
        name(descriptor) == "ObjectBase" && moduleName(descriptor) == "RealmLite"
    }

    /// Object and EmbeddedObject themselves (ObjectBase never reaches here).
    private func isRealmLiteBase(_ descriptor: UnsafeRawPointer) -> Bool {
        moduleName(descriptor) == "RealmLite" && ["Object", "EmbeddedObject"].contains(name(descriptor))
    }

    private func name(_ descriptor: UnsafeRawPointer) -> String? {
        relative(descriptor + 8).map { String(cString: $0.assumingMemoryBound(to: CChar.self)) }
    }

    /// The name of the module the descriptor's parent chain starts at.
    private func moduleName(_ descriptor: UnsafeRawPointer) -> String? {
        var current = descriptor
        for _ in 0..<16 {
            let raw = (current + 4).loadUnaligned(as: Int32.self)
            guard raw != 0 else { break }
            let target = current + 4 + Int(raw & ~1)
            guard let parent = raw & 1 != 0 ? target.load(as: UnsafeRawPointer?.self) : target else { return nil }
            current = parent
        }
        return current.load(as: UInt32.self) & 0x1F == 0 ? name(current) : nil
    }
}

/// The target of an Int32 relative pointer at `field`, nil for 0.
private func relative(_ field: UnsafeRawPointer) -> UnsafeRawPointer? {
    let offset = field.loadUnaligned(as: Int32.self)
    return offset == 0 ? nil : field + Int(offset)
}
