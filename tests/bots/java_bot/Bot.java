import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/** Test bot: a JVM bot run with the flags docs/protocol.md gives; plays the first legal action. */
public final class Bot {
    private static String field(String line, String name) {
        int at = line.indexOf("\"" + name + "\":");
        if (at < 0) return "";
        int start = at + name.length() + 3;
        int end = start;
        while (end < line.length() && "0123456789\"abcdefghijklmnopqrstuvwxyz_".indexOf(line.charAt(end)) >= 0) end++;
        return line.substring(start, end).replace("\"", "");
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String type = field(line, "type");
            if (type.equals("hello")) {
                System.out.println("{\"type\":\"hello\",\"name\":\"java_bot\",\"version\":\"1\"}");
            } else if (type.equals("turn")) {
                int legal = line.indexOf("\"legal\":[{") + 10;
                String first = line.substring(legal, line.indexOf('}', legal));  // "action":"play","card":3
                System.out.println("{\"type\":\"action\",\"id\":" + field(line, "id") + "," + first + "}");
            } else if (type.equals("shutdown")) {
                return;
            }
            System.out.flush();
        }
    }
}
