package io.github.rocksfilter;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.StructLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The struct layouts of {@link Native} against the C compiler's: compiles
 * {@code bindings/layout/struct_layout.c} against {@code include/rocksfilter.h} (with {@code $CC},
 * default {@code cc}), runs it, and compares every struct's size and alignment and every member's
 * name, order, offset and size with the Java {@link StructLayout}s. Also checks that the program
 * lists every member the header declares for those structs, so a member added to the header fails
 * here until both the program and the Java layout have it.
 */
class StructLayoutTest {
    static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();
    static final Path HEADER = ROOT.resolve("include/rocksfilter.h");
    static final Path PROGRAM = ROOT.resolve("bindings/layout/struct_layout.c");

    /** One struct as a C compiler or a Java layout sees it. */
    record CStruct(long size, long align, List<String> members) {
    }

    /** The C program's output: struct name to its size, alignment and "name offset size" lines. */
    static Map<String, CStruct> cLayouts() throws IOException, InterruptedException {
        Path out = Path.of("target/struct-layout");
        Files.createDirectories(out);
        Path exe = out.resolve("struct_layout");
        String cc = System.getenv().getOrDefault("CC", "cc");
        List<String> compile = List.of(cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-I" + ROOT.resolve("include"),
                PROGRAM.toString(), "-o", exe.toString());
        String compiled = run(compile);
        System.out.println("struct layout: " + String.join(" ", compile) + compiled);
        String printed = run(List.of(exe.toString()));
        Map<String, CStruct> structs = new LinkedHashMap<>();
        String current = null;
        for (String line : printed.strip().split("\n")) {
            String[] w = line.split(" ");
            if (w[0].equals("struct") && w.length == 4) {
                current = w[1];
                structs.put(current, new CStruct(Long.parseLong(w[2]), Long.parseLong(w[3]), new ArrayList<>()));
            } else if (w[0].equals("field") && w.length == 5 && w[1].equals(current)) {
                structs.get(current).members().add(w[2] + " " + w[3] + " " + w[4]);
            } else {
                throw new AssertionError("unexpected line from struct_layout: " + line);
            }
        }
        return structs;
    }

    static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), command + " timed out");
        assertEquals(0, p.exitValue(), command + " failed:\n" + output);
        return output;
    }

    /** A Java struct layout as "name offset size" lines (padding left out). */
    static CStruct javaLayout(StructLayout s) {
        List<String> members = new ArrayList<>();
        long offset = 0;
        for (MemoryLayout m : s.memberLayouts()) {
            if (!(m instanceof PaddingLayout)) {
                String name = m.name().orElseThrow(() -> new AssertionError(s + ": unnamed member " + m));
                assertEquals(offset, s.byteOffset(MemoryLayout.PathElement.groupElement(name)), name);
                members.add(name + " " + offset + " " + m.byteSize());
            }
            offset += m.byteSize();
        }
        return new CStruct(s.byteSize(), s.byteAlignment(), members);
    }

    /** The member names the header declares for {@code typedef struct name { ... } name;}. */
    static List<String> headerMembers(String header, String name) {
        Matcher body = Pattern.compile("typedef struct " + name + " \\{(.*?)\\} " + name + ";", Pattern.DOTALL)
                .matcher(header);
        assertTrue(body.find(), "include/rocksfilter.h declares no struct " + name);
        String code = body.group(1).replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\n]*", "");
        List<String> names = new ArrayList<>();
        // "type name;", "type name[N];", or a function pointer "ret (*name)(params);".
        Matcher member = Pattern.compile("\\(\\s*\\*\\s*(\\w+)\\s*\\)\\s*\\([^;]*\\)\\s*;|(\\w+)\\s*(?:\\[[^\\]]*\\])?\\s*;")
                .matcher(code);
        while (member.find()) {
            names.add(member.group(1) != null ? member.group(1) : member.group(2));
        }
        return names;
    }

    @Test
    void javaLayoutsMatchTheCHeader() throws Exception {
        Map<String, CStruct> c = cLayouts();
        Map<String, CStruct> java = new LinkedHashMap<>();
        for (StructLayout s : Native.STRUCTS) {
            java.put(s.name().orElseThrow(() -> new AssertionError("unnamed struct layout " + s)), javaLayout(s));
        }
        assertEquals(c.keySet(), java.keySet(), "the structs struct_layout.c prints are the structs Java mirrors");
        String header = Files.readString(HEADER);
        for (Map.Entry<String, CStruct> e : c.entrySet()) {
            String name = e.getKey();
            CStruct cs = e.getValue();
            List<String> listed = cs.members().stream().map(m -> m.split(" ")[0]).toList();
            assertEquals(headerMembers(header, name), listed,
                    name + ": bindings/layout/struct_layout.c must list every member the header declares, in order");
            assertEquals(cs.members(), java.get(name).members(), name + ": members (name offset size), C vs Java");
            assertEquals(cs.size(), java.get(name).size(), name + ": sizeof, C vs Java");
            assertEquals(cs.align(), java.get(name).align(), name + ": alignof, C vs Java");
            System.out.printf("struct layout: %s matches the header: %d bytes, %d members%n", name, cs.size(),
                    cs.members().size());
        }
    }
}
