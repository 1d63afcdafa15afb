// A file written by RealmLite before Decimal128 became a decimal128 (commit
// cd1efc0, when values were Foundation Decimals stored as their description):
// class LegacyDecimalObject, ids 0...9 (ValueTypeTests). Its non-zero byte runs,
// base64, so the test can write the file back byte for byte.
enum LegacyDecimalFixture {
    static let size = 20480
    static let runs: [(offset: Int, base64: String)] = [
        (0, """
            8o/4YgE=
            """),
        (16, """
            Ag==
            """),
        (28, """
            AQAAAFNDVEFSRQABAQAAAAAQAAACAAAAAAAAAAU=
            """),
        (80, """
            BAAAAAAAAAADAAAAAAAAAAE=
            """),
        (112, """
            AQ==
            """),
        (4096, """
            92L43QEAAAABAAAAAAAAAAE=
            """),
        (4124, """
            AQAAAFNDVEFSRQABAQAAAAAQAAABAAAAAAAAAAI=
            """),
        (8192, """
            LYIj/gMACgACAAAAAAAAAAIAAAAAAAAAMw0AAAEAAADOD50PXA/lDrMOTA4aDu0NXg0zDQ==
            """),
        (11571, """
            CAAdAAAAgAAAAAAAAAkAAgEAAAABAAAADwAAADACAAAAAQAAAAIAAAAwOQgAgQAAAIAAAAAAAAAIAAAiAAAARAAAAHMAAAAt
            MC4wMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDE1LTAuMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAxNQIAAAAi
            AAAAIwAAAC0wLjAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMTU4CAAfAAAAgAAAAAAAAAcAAgIAAAACAAAAEQAAAC0z
            AgAAAAIAAAADAAAALTM3CAAkAAAAgAAAAAAAAAYAAAMAAAAGAAAAFgAAADAuMTAuMQIAAAADAAAABAAAADAuMTYIAFkAAACA
            AAAAAAAABQACHwAAAB8AAABLAAAAMTAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMAIAAAAfAAAAIAAAADEwMDAwMDAw
            MDAwMDAwMDAwMDAwMDAwMDAwMDAwMDA1CAAkAAAAgAAAAAAAAAQAAAMAAAAGAAAAFgAAAE5hTk5hTgIAAAADAAAABAAAAE5h
            TjQIAGkAAACAAAAAAAAAAwACJwAAACcAAABbAAAAMTIzNDU2Nzg5MDEyMzQ1Njc4OTAuMTIzNDU2Nzg5MDEyMzQ1Njc4AgAA
            ACcAAAAoAAAAMTIzNDU2Nzg5MDEyMzQ1Njc4OTAuMTIzNDU2Nzg5MDEyMzQ1Njc4MwgAMwAAAIAAAAAAAAACAAAIAAAAEAAA
            ACUAAAAwLjAwMDAwMTAuMDAwMDAxAgAAAAgAAAAJAAAAMC4wMDAwMDEyCAAjAAAAgAAAAAAAAAEAAgQAAAAEAAAAFQAAAC0y
            MDACAAAABAAAAAUAAAAtMjAwMQgAJAAAAIA=
            """),
        (12254, """
            AwAAAAYAAAAWAAAAMS41MS41AgAAAAMAAAAEAAAAMS41MHIW2UkDAAEAAwAAAAAAAAACAAAAAAAAAL0NAAABAAAAvQ0=
            """),
        (15805, """
            BgA3AgAAc2NoZW1heyJjbGFzc2VzIjpbeyJlbWJlZGRlZCI6ZmFsc2UsImdlbmVyYXRpb25zIjpbM10sImtleWVkQnlQcmlt
            YXJ5S2V5Ijp0cnVlLCJuYW1lIjoiTGVnYWN5RGVjaW1hbE9iamVjdCIsInByb3BlcnRpZXMiOlt7ImNvbGxlY3Rpb24iOjAs
            ImluZGV4ZWQiOmZhbHNlLCJuYW1lIjoiaWQiLCJvcHRpb25hbCI6ZmFsc2UsInByaW1hcnlLZXkiOnRydWUsInR5cGUiOjB9
            LHsiY29sbGVjdGlvbiI6MCwiaW5kZXhlZCI6ZmFsc2UsIm5hbWUiOiJ2YWx1ZSIsIm9wdGlvbmFsIjpmYWxzZSwicHJpbWFy
            eUtleSI6ZmFsc2UsInR5cGUiOjExfSx7ImNvbGxlY3Rpb24iOjAsImluZGV4ZWQiOmZhbHNlLCJuYW1lIjoib3B0VmFsdWUi
            LCJvcHRpb25hbCI6dHJ1ZSwicHJpbWFyeUtleSI6ZmFsc2UsInR5cGUiOjExfSx7ImNvbGxlY3Rpb24iOjEsImluZGV4ZWQi
            OmZhbHNlLCJuYW1lIjoibGlzdCIsIm9wdGlvbmFsIjpmYWxzZSwicHJpbWFyeUtleSI6ZmFsc2UsInR5cGUiOjExfV0sInN3
            aWZ0VHlwZSI6IjE0UmVhbG1MaXRlVGVzdHMxOUxlZ2FjeURlY2ltYWxPYmplY3RDIn1dLCJmb3JtYXQiOjMsInZlcnNpb24i
            OjB9Q4tvlwMAAwAEAAAAAAAAAAIAAAAAAAAAJg8AAAEAAACzD2YPJg8=
            """),
        (20262, """
            CgAwAAAAcmVhbG06bWV0YQMAAAAAAAAAAQAAAAAAAAAB
            """),
        (20310, """
            AQ==
            """),
        (20326, """
            FwAwAAAAb2JqOkxlZ2FjeURlY2ltYWxPYmplY3QCAAAAAAAAAAoAAAAAAAAAAQ==
            """),
        (20387, """
            AQ==
            """),
        (20403, """
            FwAwAAAAZGVsOkxlZ2FjeURlY2ltYWxPYmplY3Q=
            """),
    ]
}
